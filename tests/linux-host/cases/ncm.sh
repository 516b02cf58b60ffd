#!/bin/sh
# ncm.sh PROVIDER: ether.sh's checks with CDC NCM (ours: ether ncm=1;
# vudc: the kernel's usb_f_ncm) against the guest's cdc_ncm.
LH_NET_FUNC=ncm exec sh "$(cd "$(dirname "$0")" && pwd)/ether.sh" "$@"
