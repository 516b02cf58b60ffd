#!/bin/sh
# check-symbols.sh NM IMAGE: fails if the firmware image (core, polled MSF,
# null UDC, RAM disk) references the printf family, the error names of
# usb_strerror(), the MSF's thread adapter, 64-bit division or the heap
# (malloc and friends; COMPOSITE_NO_HEAP). Reads the image's symbol table (nm), so what the
# linker kept is what is checked.
set -eu
nm=$1 image=$2
syms=$("$nm" "$image" | awk '{print $NF}')
bad=""
for s in printf vprintf fprintf sprintf snprintf vsnprintf vfprintf _vfprintf_r \
	_svfprintf_r _printf_i puts fputs usb_strerror \
	pthread_create pthread_mutex_lock sigaction \
	msf__worker_main msf__os_thread_start msf__os_signal_watch \
	__aeabi_uldivmod __aeabi_ldivmod \
	malloc calloc realloc free _malloc_r _calloc_r _realloc_r _free_r; do
	if echo "$syms" | grep -qx "$s"; then
		bad="$bad $s"
	fi
done
if [ -n "$bad" ]; then
	echo "check-symbols: $image references:$bad" >&2
	exit 1
fi
echo "check-symbols: $image: no printf family, error names, threads, 64-bit division or heap"
