# tools/prometheus/iolat-alerts.yml: every iolat_* metric the rules and
# their tests use is one iolat-top -P writes (its metric table), so a
# renamed metric fails here rather than silently never alerting; then
# promtool check rules, and promtool test rules on iolat-alerts.test.yml
# (for each alert, series that fire it and series that must not).
. "$(dirname "$0")/lib.sh"
D=$REPO/tools/prometheus
exported=$(grep -oE '(\{ "|TYPE |X\(get_[a-z_]+, ")iolat_[a-z_]+' "$REPO/tools/iolat-top-output.c" |
	grep -oE 'iolat_[a-z_]+' | sort -u)
[ -n "$exported" ] || fail "found no metric in tools/iolat-top-output.c: the extraction is out of date"
used=$(grep -vh '^ *#' "$D/iolat-alerts.yml" "$D/iolat-alerts.test.yml" |
	grep -oE '\biolat_[a-z_]+' | sort -u)
unknown=$(comm -23 <(echo "$used") <(echo "$exported"))
[ -z "$unknown" ] || fail "the rules use metrics iolat-top does not export: $unknown"
note "rules and tests use $(echo "$used" | wc -l) of the $(echo "$exported" | wc -l) metrics iolat-top exports"

command -v promtool >/dev/null ||
	skip "metric names checked; promtool missing, rules not checked nor tested (make deps: prometheus)"
out=$(promtool check rules "$D/iolat-alerts.yml" 2>&1) || fail "promtool check rules: $out"
note "$(echo "$out" | grep -o 'SUCCESS.*')"
# promtool resolves rule_files from the test file's directory.
out=$(cd "$D" && promtool test rules iolat-alerts.test.yml 2>&1) || fail "promtool test rules: $out"
note "promtool test rules: $(grep -c 'alertname:' "$D/iolat-alerts.test.yml") evaluations of $(grep -c -- '- alert:' "$D/iolat-alerts.yml") alerts pass"
