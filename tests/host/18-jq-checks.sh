# The guest tests' JSON checks.  The guest runs the host's jq (its root is
# the host's /), Debian 12's 1.6, whose `jq -e FILTER` exits 0 when its
# input holds no value at all: a check piped the last line of a file not
# written yet, or a row that is not there, passes having looked at
# nothing.  tools/07-fallback's swap wait did, at its first poll, and the
# test then stopped the tools 5 s later, before loose paid any delay.  So
# the tests check through tests/lib.sh's jqe, or `jq -e -s`/`jq -e -n`:
# here jqe against inputs with no value, false, partial and true ones,
# guest/scenarios/lib.sh's group_check (which the scenario tests check
# through) against a real recording, and every `jq -e` in the guest suites,
# the scenarios (guest/scenarios/lib.sh brings tests/lib.sh's jqe) and the
# demo against that rule.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"

# jqe_says WANT INPUT JQE-ARG...: tests/lib.sh's jqe with INPUT (printf
# %b) on stdin exits 0 (WANT yes) or not (no).
jqe_says() {
	local want=$1 input=$2 got=no
	shift 2
	printf '%b' "$input" | IOLAT_GUEST=1 IOLAT_REPO=$REPO \
		bash -c '. "$IOLAT_REPO/tests/lib.sh"; jqe "$@" >/dev/null 2>&1' jqe "$@" && got=yes
	[ "$got" = "$want" ] || fail "jqe $* on '$input': $got, want $want"
}
rc=0
printf '' | jq -e '.a > 0' >/dev/null 2>&1 || rc=$?
note "this jq ($(jq --version)): \`jq -e\` on no input at all exits $rc"

row='{"cgroups":[{"cgroup":"/l","delay_charged_ms":1.5,"delay_paid_ms":2}]}'
paid='.delay_charged_ms > 0 and .delay_paid_ms > 0'
# Nothing to look at: never true.
jqe_says no '' "$paid"
jqe_says no '\n' "$paid"
jqe_says no '{"cgroups":[{"cgroup":"/l","delay_charged_ms":1.5,"delay_pa' "$paid"
jqe_says no '{"cgroups":[]}\n' 'any(.cgroups[]; .cgroup == "/l")'
jqe_says no "$row\n" '.cgroups[] | select(.cgroup == "/none") | .delay_paid_ms > 0'
# The wait's question on the swap row: false, then true.
jqe_says no '{"cgroup":"/l","delay_charged_ms":1.5,"delay_paid_ms":0}\n' "$paid"
jqe_says yes '{"cgroup":"/l","delay_charged_ms":1.5,"delay_paid_ms":2}\n' "$paid"
jqe_says yes "$row\n" '.cgroups[] | select(.cgroup == "/l") | .delay_paid_ms > 0'
jqe_says yes "$row\n" 'any(.cgroups[]; .cgroup == "/l")'
# Every value, with the options jq takes.
jqe_says no '{"a":1}\n{"a":0}\n' '.a > 0'
jqe_says yes '{"a":1}\n{"a":2}\n' '.a > 0'
jqe_says yes '{"a":1}\n' --argjson e '{"a":1}' --arg s x '.a == $e.a and $s == "x"'
jqe_says no '{"a":null}\n' '.a'
note "jqe: no value, a partial line, no row, false or null: false; true rows: true"

# group_check CGROUP EXPR (guest/scenarios/lib.sh) on REC exits 0 (WANT
# yes) or not (no).  A group with no row in the recording is rec_group's
# null, which passes '.children == null' (and an unreadable recording no
# value at all, which passed jq 1.6's -e): no row must fail.
check_says() {
	local want=$1 rec=$2 got=no
	shift 2
	IOLAT_GUEST=1 IOLAT_REPO=$REPO bash -c '. "$IOLAT_REPO/guest/scenarios/lib.sh"
		REC=$0; group_check "$@" "checked"' "$rec" "$@" >/dev/null 2>&1 && got=yes
	[ "$got" = "$want" ] || fail "group_check $* on ${rec##*/}: $got, want $want"
}
nested=$REPO/tests/host/data/real-4-nested.top.json
check_says yes "$nested" /iolat-n/batch '.children == null'
check_says yes "$nested" /iolat-n '.children.culprits == ["/iolat-n/web"]'
check_says no "$nested" /iolat-n '.children.culprits == ["/iolat-n/batch"]'
check_says no "$nested" /iolat-n/none '.children == null'
check_says no /dev/null /iolat-n/batch '.children == null'
check_says no "$REPO/tests/host/data/none.json" /iolat-n/batch '.children == null'
note "group_check on scenario 4's recording: true and false summaries as they are; no row, an empty or missing recording: false"

# The rule: every jq -e of the guest suites, the scenarios and the demo is
# `jq -e -s` or `jq -e -n`.
bad=$(cd "$REPO" && { grep -n 'jq -e' tests/lib.sh tests/[a-z]*/*.sh tests/guest-suite |
	grep -v '^tests/host/'; grep -rnI 'jq -e' guest/scenarios guest/demo; } |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | grep -vE 'jq -e -[sn] ')
[ -z "$bad" ] || fail "jq -e on input that may hold nothing (use jqe):
$bad"
note "guest suites: $(cd "$REPO" && grep -c 'jqe \|jq -e -[sn] ' tests/[a-z]*/*.sh |
	grep -v '^tests/host/' | awk -F: '{ n += $2 } END { print n }') JSON checks, scenarios: $(cd "$REPO" &&
	grep -rcI 'jqe \|jq -e -[sn] ' guest/scenarios guest/demo | awk -F: '{ n += $2 } END { print n }'), none on jq -e alone"
