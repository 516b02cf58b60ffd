# bench.sh: measuring helpers shared by the linux-host benchmarks
# (bench/linux-host/*.sh), sourced by them on both sides after common.sh.
# It lives here, not under bench/, because run-guest.sh ships this folder
# to the guest. Only functions; touches nothing but the results file
# b_results names.

# b_best A B: the larger of two rates (A may be empty: none yet).
b_best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'; }

# b_lowest A B: the smaller of two times (A may be empty).
b_lowest() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

# b_ratio A B: A / B with three decimals, "-" when either is missing.
b_ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.3f", a / b; else print "-" }'
}

# b_mbps BYTES SECS: MB/s (10^6 bytes a second), two decimals.
b_mbps() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else print "?" }'; }

# b_cpu_now PID: "busy idle user sys" clock ticks so far: the guest's busy
# and idle time (/proc/stat) and the user and system time of process PID
# (0 0 without one).
b_cpu_now() {
    _p="0 0"
    [ -z "$1" ] || _p=$(awk '{ print $14, $15 }' "/proc/$1/stat" 2>/dev/null || echo 0 0)
    awk -v p="$_p" '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6, p }' /proc/stat
}

# b_cpu_share BEFORE AFTER: "guest idle I%, gadget G% of busy (user U%,
# system S%)" between two b_cpu_now readings.
b_cpu_share() {
    echo "$1 $2" | awk '{ b = $5 - $1; i = $6 - $2; u = $7 - $3; s = $8 - $4
        gi = (b + i > 0) ? 100 * i / (b + i) : 0
        pu = (b > 0) ? 100 * u / b : 0; ps = (b > 0) ? 100 * s / b : 0
        printf "guest idle %.0f%%, gadget process %.0f%% of the busy time", gi, pu + ps
        printf " (user %.0f%%, system %.0f%%)", pu, ps }'
}

# b_cpu_idle BEFORE AFTER: the guest's idle share between two b_cpu_now
# readings, whole percent.
b_cpu_idle() {
    echo "$1 $2" | awk '{ b = $5 - $1; i = $6 - $2
        printf "%.0f", (b + i > 0) ? 100 * i / (b + i) : 0 }'
}

# b_results OUT: host side, after the guest: the guest's /host/results.txt
# (the work folder's) copied to OUT (LH_BENCH_OUT, when set) and printed.
b_results() {
    [ -s "$LH_WORK/results.txt" ] || lh_fail "the guest wrote no results"
    [ -z "$1" ] || [ "$1" = "$LH_WORK/results.txt" ] || cp "$LH_WORK/results.txt" "$1"
    echo
    cat "$LH_WORK/results.txt"
}
