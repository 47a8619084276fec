# The guest tests' JSON checks.  The guest runs the host's jq (its root is
# the host's /), Debian 12's 1.6, whose `jq -e FILTER` exits 0 when its
# input holds no value at all: a check piped the last line of a file not
# written yet, or a row that is not there, passes having looked at
# nothing.  tools/07-fallback's swap wait did, at its first poll, and the
# test then stopped the tools 5 s later, before loose paid any delay.  So
# the tests check through tests/lib.sh's jqe, or `jq -e -s`/`jq -e -n`:
# here jqe against inputs with no value, false, partial and true ones, and
# every `jq -e` in the guest suites against that rule.
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

# The rule: every jq -e of the guest suites is `jq -e -s` or `jq -e -n`.
bad=$(cd "$REPO" && grep -n 'jq -e' tests/lib.sh tests/[a-z]*/*.sh tests/guest-suite |
	grep -v '^tests/host/' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | grep -vE 'jq -e -[sn] ')
[ -z "$bad" ] || fail "jq -e on input that may hold nothing (use jqe):
$bad"
note "guest suites: $(cd "$REPO" && grep -c 'jqe \|jq -e -[sn] ' tests/[a-z]*/*.sh |
	grep -v '^tests/host/' | awk -F: '{ n += $2 } END { print n }') JSON checks, none on jq -e alone"
