# iolat-top and iolat-snoop inside a cgroup namespace, whose cgroup2 mount
# is rooted at the namespace's root (iolat-ns), while the kernel's paths
# start at the hierarchy's: cgroup_mkdir's path (/iolat-ns/b) was looked
# for under the mount, never found, and the cgroup came only with a walk
# of the whole tree 5 intervals later, for every mkdir, those outside the
# namespace too; a path over 255 bytes was cut in the BPF record.  Now a
# new cgroup is placed below its parent by id: its row comes within 3
# reports, under its path in the namespace (/b), whole however long; a
# cgroup outside the namespace never gets a row; iolat-snoop names the
# cgroups of events the same way (the one outside: cgroup null, its id).  iolat-top --no-events (the io.stat
# mode, which walks the tree each interval) beside it: the same rows, as
# the namespace sees them, none outside.  Needs unshare -C (cgroup namespaces are
# built with cgroups; their ucount limit comes with CONFIG_NAMESPACES);
# without CONFIG_FHANDLE (the guest's config today) the tools cannot open
# a cgroup by id and fall back as they say (noted), and this still holds.
. "$IOLAT_REPO/tests/lib.sh"
need_tools
why=$(unshare -C -m true 2>&1) || skip "unshare -C -m fails here: $why"

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
mm=$(majmin iolat0)
ns=$CG/iolat-ns
L1=$(printf 'l%.0s' $(seq 200))
L2=$(printf 'm%.0s' $(seq 200))
rm -f /tmp/iolat-ns.go /tmp/iolat-ns.snoop /tmp/iolat-ns.topne
mkdir "$ns" || fail "cannot create $ns"
# The namespace's root is the cgroup of the process that unshares (iolat-ns);
# it is moved out at once, since a cgroup with a process cannot give its
# children the io controller, and the namespace keeps its root.  Then, on
# the go, it mounts cgroup2 in its own mount namespace and runs the tools.
(echo $BASHPID >"$ns/cgroup.procs" &&
	exec unshare -C -m --propagation private sh -c '
		while [ ! -e /tmp/iolat-ns.go ]; do sleep 0.1; done
		# A private mount namespace: the mount of the guest goes, here only.
		umount -l /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || exit 9
		"$0/iolat-snoop" -j -d iolat0 >/tmp/ns-snoop.json 2>/tmp/ns-snoop.err &
		echo $! >/tmp/iolat-ns.snoop
		"$0/iolat-top" --no-events -j -d iolat0 1 >/tmp/ns-topne.json 2>/tmp/ns-topne.err &
		echo $! >/tmp/iolat-ns.topne
		exec "$0/iolat-top" -j -d iolat0 1' "$TOOLS" >/tmp/ns-top.json 2>/tmp/ns-top.err) &
top=$!
# The tools run outside iolat-ns (cleanup() kills only what is in iolat-*).
trap 'kill -INT $top $(cat /tmp/iolat-ns.snoop /tmp/iolat-ns.topne 2>/dev/null) 2>/dev/null
	rm -f /tmp/iolat-ns.go /tmp/iolat-ns.snoop /tmp/iolat-ns.topne' EXIT
unshared() { [ "$(readlink /proc/$top/ns/cgroup)" != "$(readlink /proc/self/ns/cgroup)" ]; }
wait_for 20 unshared || fail "unshare -C did not happen"
echo $top >"$CG/cgroup.procs" || fail "cannot move the namespace's process out of iolat-ns"
# A "sleep 0.1" of its wait loop forked before the move is still in
# iolat-ns for a moment, and io cannot be given to the children of a
# cgroup with a process in it (EBUSY): wait for it to go.
emptied() { [ -z "$(cat "$ns/cgroup.procs")" ]; }
wait_for 10 emptied || fail "iolat-ns keeps processes: $(cat "$ns/cgroup.procs")"
echo "+io" >"$ns/cgroup.subtree_control" || fail "cannot enable io in iolat-ns"
mkdir "$ns/a" && echo "$mm target=2000" >"$ns/a/io.latency" || fail "cannot set up iolat-ns/a"
touch /tmp/iolat-ns.go
reports() { wc -l </tmp/ns-top.json; }
started() { [ "$(reports)" -ge 1 ] || ! kill -0 $top 2>/dev/null; }
wait_for 120 started && kill -0 $top 2>/dev/null ||
	fail "iolat-top in the namespace printed nothing: $(cat /tmp/ns-top.err)"
row() { jq -c --arg cg "$1" '.cgroups[] | select(.cgroup == $cg)'; }
tail -1 /tmp/ns-top.json | row /a | jqe '.target_us == 2000' >/dev/null ||
	fail "no row /a (iolat-ns/a as the namespace sees it): $(tail -1 /tmp/ns-top.json)"
# Its reports say their paths start at a namespace's root.
tail -1 /tmp/ns-top.json | jqe '.cgroupns == true' >/dev/null ||
	fail "iolat-top in a cgroup namespace: cgroupns is not true"
# iolat-snoop attached: it sees a target written.
echo "$mm target=2500" >"$ns/a/io.latency" || fail "cannot change a's target"
snoop_on() { grep -q '"event":"target"' /tmp/ns-snoop.json; }
wait_for 60 snoop_on || fail "iolat-snoop in the namespace saw no target event: $(cat /tmp/ns-snoop.err)"

# New cgroups: one in the namespace, one with a 402-byte path in it, one
# outside it.
r0=$(reports)
mkdir "$ns/b" "$ns/$L1" "$ns/$L1/$L2" "$CG/iolat-out" || fail "cannot create the cgroups"
echo "+io" >"$ns/$L1/cgroup.subtree_control" || fail "cannot enable io in the long one"
echo "$mm target=3000" >"$ns/b/io.latency" &&
	echo "$mm target=4000" >"$ns/$L1/$L2/io.latency" &&
	echo "$mm target=5000" >"$CG/iolat-out/io.latency" || fail "cannot set the targets"
# first_report PATH: the number of the first report with a row for PATH.
first_report() {
	jq -c --arg cg "$1" 'any(.cgroups[]; .cgroup == $cg)' /tmp/ns-top.json |
		grep -n true | head -1 | cut -d: -f1
}
both() { [ -n "$(first_report /b)" ] && [ -n "$(first_report "/$L1/$L2")" ]; }
wait_for 30 both || { tail -1 /tmp/ns-top.json | jq -c '[.cgroups[].cgroup]';
	fail "the new cgroups' rows did not come: $(cat /tmp/ns-top.err)"; }
rb=$(first_report /b)
rl=$(first_report "/$L1/$L2")
note "created after report $r0: /b in report $rb, the 402-byte path in report $rl"
[ $((rb - r0)) -le 3 ] && [ $((rl - r0)) -le 3 ] ||
	fail "new cgroups took $((rb - r0)) and $((rl - r0)) reports, want 3 at most (a walk comes after 5)"
tail -1 /tmp/ns-top.json | row "/$L1/$L2" | jqe '.target_us == 4000' >/dev/null ||
	fail "the long path's row lacks its target"
sleep 2
if jq -r '.cgroups[].cgroup' /tmp/ns-top.json | grep -E 'iolat-out|^/iolat-ns' | head -1 | grep -q .; then
	fail "a cgroup outside the namespace, or a path from the hierarchy's root, in iolat-top's rows"
fi
if grep -q 'cannot open cgroups by id' /tmp/ns-top.err; then
	note "no open_by_handle_at() here (CONFIG_FHANDLE): $(cat /tmp/ns-top.err)"
fi

# The io.stat mode: every cgroup with a target, as the namespace sees it.
ne_rows() { tail -1 /tmp/ns-topne.json | jqe --arg l "/$L1/$L2" \
	'[.cgroups[] | select(.target_us != null) | .cgroup] as $c |
	 all("/a", "/b", $l; . as $p | $c | any(.[]; . == $p))' >/dev/null; }
wait_for 10 ne_rows || fail "iolat-top --no-events lacks /a, /b or the long path: \
$(tail -1 /tmp/ns-topne.json | jq -c '[.cgroups[].cgroup]') $(cat /tmp/ns-topne.err)"
tail -1 /tmp/ns-topne.json | jqe '.mode == "iostat"' >/dev/null ||
	fail "iolat-top --no-events is not in the io.stat mode: $(tail -1 /tmp/ns-topne.json | head -c 300)"
if jq -r '.cgroups[].cgroup' /tmp/ns-topne.json | grep -E 'iolat-out|^/iolat-ns' | head -1 | grep -q .; then
	fail "iolat-top --no-events: a cgroup outside the namespace, or a path from the hierarchy's root"
fi
note "iolat-top --no-events: $(tail -1 /tmp/ns-topne.json | jq -c '[.cgroups[].cgroup]' | cut -c1-120)..."

snoop=$(cat /tmp/iolat-ns.snoop)
topne=$(cat /tmp/iolat-ns.topne)
kill -INT $top $snoop $topne
wait $top || fail "iolat-top exited $? on SIGINT: $(cat /tmp/ns-top.err)"
wait_for 10 pid_gone "$snoop" || fail "iolat-snoop did not end"
wait_for 10 pid_gone "$topne" || fail "iolat-top --no-events did not end"
trap - EXIT
# iolat-snoop: the targets' events carry the kernel's paths; it names the
# cgroups by id as iolat-top does (the tree, following cgroup_mkdir), as
# the namespace sees them, the long one whole, and never by the kernel's
# path: the one outside (target 5000) is printed with cgroup null and its
# cgroup_id (it used to be /iolat-out, and /b /iolat-ns/b).
jq -c 'select(.event == "target") | {cgroup, cgroup_id, new_us}' /tmp/ns-snoop.json
head -1 /tmp/ns-snoop.json | jqe '.event == "mode" and .cgroupns == true' >/dev/null ||
	fail "iolat-snoop in a cgroup namespace: its first record does not say so: $(head -1 /tmp/ns-snoop.json)"
out_id=$(stat -c %i "$CG/iolat-out")
jq -e -s --argjson id "$out_id" 'any(.[]; .event == "target" and .new_us == 5000 and
	.cgroup == null and .cgroup_id == $id)' /tmp/ns-snoop.json >/dev/null ||
	fail "iolat-snoop: the cgroup outside the namespace is not cgroup null with its id"
if jq -r 'select(.cgroup != null) | .cgroup' /tmp/ns-snoop.json | grep -E 'iolat-out|^/iolat-ns' | head -1 | grep -q .; then
	fail "iolat-snoop: a path from the hierarchy's root, or outside the namespace"
fi
jq -e -s 'any(.[]; .event == "target" and .new_us == 3000 and .cgroup == "/b")' \
	/tmp/ns-snoop.json >/dev/null || fail "iolat-snoop did not name /b as the namespace sees it"
jq -e -s --arg cg "/$L1/$L2" 'any(.[]; .event == "target" and .new_us == 4000 and .cgroup == $cg)' \
	/tmp/ns-snoop.json >/dev/null || fail "iolat-snoop did not name the long path whole"
rm -f /tmp/iolat-ns.go /tmp/iolat-ns.snoop /tmp/iolat-ns.topne
rmdir "$ns/$L1/$L2" "$ns/$L1" "$ns/b" "$ns/a" "$ns" "$CG/iolat-out" ||
	fail "cannot remove the cgroups"
