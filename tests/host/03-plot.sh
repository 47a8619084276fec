# tools/iolat-plot on the host: usage and errors with their exit codes,
# then PNGs from synthetic recordings shaped like 'iolat-top -j' output
# (tools/iolat-top.c print_json): a non-rotational device alone, one
# beside a rotational device, and names that try to run commands.
# IOLAT_PLOT_KEEP=DIR keeps them there, to look at.
. "$(dirname "$0")/lib.sh"
P=$REPO/tools/iolat-plot
command -v jq >/dev/null || skip "no jq"
command -v gnuplot >/dev/null || skip "no gnuplot (make deps installs gnuplot-nox)"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# row DEV ROT CGROUP ID TARGET WINDOW DEPTH USE_DELAY CHG PAID [CHILDREN]:
# one cgroup's object; WINDOW and CHILDREN are JSON (or null / absent).
row() {
	local win=$6 extra=
	[ "$win" = null ] || extra=',"windows":40,"windows_missed":38'
	printf '{"device":"%s","rotational":%s,"cgroup":"%s","cgroup_id":%s,"target_us":%s,"window":%s%s,"iops":%s.0,"read_mbps":1.250,"write_mbps":0.000,"depth":%s,"cookie":999992,"state":"%s","use_delay":%s,"delay_charged_ms_per_s":%s,"delay_paid_ms_per_s":%s,"throttled_bios_per_s":12.0,"delay_charged_ms":100.000,"delay_paid_ms":80.000,"throttled_bios":120%s}' \
		"$1" "$2" "$3" "$4" "$5" "$win" "$extra" $((300 + RANDOM % 50)) "$7" \
		"$( [ "$8" -gt 0 ] && echo delayed || echo ok)" "$8" "$9" "${10}" "${11:+,\"children\":${11}}"
}
# synth FILE MIXED|nonrot|targets: 40 one-second reports; loose's depth
# halves to 1, then induced delay, then tight stops and loose recovers to
# max.  targets: tight's target is set at 5 s, changed at 15 s, removed at
# 30 s.
synth() {
	local i depth use chg paid win rwin tgt
	: >"$1"
	for i in $(seq 0 39); do
		case $i in
		[0-4]) depth='"max"' ;; 5) depth=8 ;; 6) depth=4 ;; 7) depth=2 ;;
		2[6-9]|3[0-3]) depth=$((i - 24)) ;; 3[4-9]) depth='"max"' ;; *) depth=1 ;;
		esac
		use=0 chg=0.000 paid=0.000
		if [ "$i" -ge 9 ] && [ "$i" -le 25 ]; then use=$(( (i - 7) / 2 )) chg=$((i * 3)).500 paid=$((i * 2)).250; fi
		win='{"met":false,"samples":41,"win_ms":100,"idle":false,"action":"down","stat":"missed","missed":41,"missed_pct":100.0}'
		[ "$i" -ge 25 ] && win='{"met":true,"samples":40,"win_ms":100,"idle":true,"action":"ok","stat":"missed","missed":0,"missed_pct":0.0}'
		printf '{"schema":1,"tool":"iolat-top","time":%s.%03d,"interval_s":1.000,"lost_events":0,"cgroups":[' $((1764763200 + i)) $((RANDOM % 1000))
		row iolat0 false /iolat-p 4242 null null null 0 0.000 0.000 \
			'{"cookie":999968,"culprit":"/iolat-p/tight","scale_downs":16,"scale_ups":0,"timer_ups":0}'
		printf ,
		row iolat0 false /iolat-p/loose 4243 null null "$depth" "$use" "$chg" "$paid"
		printf ,
		tgt=1000
		if [ "$2" = targets ]; then
			case $i in [0-4]|3[0-9]) tgt=null ;; 1[5-9]|2[0-9]) tgt=2000 ;; esac
		fi
		row iolat0 false /iolat-p/tight 4244 "$tgt" "$win" null 0 0.000 0.000
		if [ "$2" = mixed ]; then
			rwin="{\"met\":$( [ $((i % 3)) = 0 ] && echo true || echo false),\"samples\":30,\"win_ms\":400,\"idle\":false,\"action\":\"hold\",\"stat\":\"mean\",\"mean_us\":$((18000 + (i % 5) * 3000))}"
			printf ,
			row vda true '/iolat-r/db \"quoted\"' 5000 25000 "$rwin" null 0 0.000 0.000
		fi
		printf ']}\n'
	done >>"$1"
}
synth "$t/nonrot.json" nonrot
synth "$t/mixed.json" mixed
synth "$t/targets.json" targets
jq -e . "$t/nonrot.json" "$t/mixed.json" "$t/targets.json" >/dev/null || fail "the synthetic recordings are not JSON"

"$P" --help | grep -q '^usage: iolat-plot' || fail "--help prints no usage"
expect 2 'no recording given' "$P"
expect 2 'unknown option -x' "$P" -x "$t/nonrot.json"
expect 2 'no such file' "$P" "$t/absent.json"
expect 2 'bad size' "$P" -s 12x "$t/nonrot.json"
expect 2 'give the PNG with -o' "$P" -
echo 'not json' >"$t/bad.json"
expect 1 'not an iolat-top -j recording' "$P" "$t/bad.json"
echo '{"time":1.0,"interval_s":1.0,"lost_events":0,"cgroups":[]}' >"$t/empty.json"
expect 1 'nothing to plot' "$P" "$t/empty.json"
expect 1 'nothing to plot.*matching' "$P" -c '^/nowhere' -o "$t/x.png" "$t/nonrot.json"
expect 1 'jq not found' env PATH=/nonexistent /bin/bash "$P" "$t/nonrot.json"
mkdir "$t/bin" && ln -s "$(command -v jq)" "$t/bin/jq"
expect 1 'gnuplot not found' env PATH="$t/bin" /bin/bash "$P" "$t/nonrot.json"
printf '#!/bin/sh\necho gnuplot 5.0 patchlevel 5\n' >"$t/bin/gnuplot" && chmod +x "$t/bin/gnuplot"
expect 1 'gnuplot 5.2 or later needed' env PATH="$t/bin:$PATH" "$P" "$t/nonrot.json"
rm "$t/bin/gnuplot"

png_ok() {	# FILE: a PNG of the default size
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
	[ "$(od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*2^24+$2*2^16+$3*2^8+$4 "x" $5*2^24+$6*2^16+$7*2^8+$8 }')" = 1200x900 ] ||
		fail "$1 is not 1200x900"
}
"$P" "$t/nonrot.json" >"$t/out" 2>&1 || fail "iolat-plot failed: $(cat "$t/out")"
png_ok "$t/nonrot.png"
"$P" -o "$t/mixed.png" -t 'mixed devices' "$t/mixed.json" || fail "iolat-plot failed on two devices"
png_ok "$t/mixed.png"
"$P" -o "$t/stdin.png" - <"$t/nonrot.json" || fail "iolat-plot failed on standard input"
png_ok "$t/stdin.png"
"$P" -c loose -o "$t/loose.png" "$t/nonrot.json" || fail "iolat-plot -c failed"
png_ok "$t/loose.png"
# A gnuplot in front of the real one: with SVG set, it first runs the
# same script with the SVG terminal into SVG, whose text is what the
# PNG shows (the names are not in the script's text).
mkdir "$t/gp"
export REAL_GNUPLOT
REAL_GNUPLOT=$(command -v gnuplot)
cat >"$t/gp/gnuplot" <<'EOF'
#!/bin/bash
args=("$@") k=0
[ "$1" = -c ] && k=1
if [ -n "${SVG:-}" ] && [ -f "${args[k]}" ]; then
	sed -e 's/^set terminal .*/set terminal svg size 1200,900 noenhanced/' \
	    -e "s|^set output .*|set output '$SVG'|" "${args[k]}" >"$SVG.gp" || exit
	args[k]=$SVG.gp
	"$REAL_GNUPLOT" "${args[@]}" || exit
fi
exec "$REAL_GNUPLOT" "$@"
EOF
chmod +x "$t/gp/gnuplot"
svgtext() {	# SVG: its texts, one a line
	sed -nE 's/.*<text>(.*)<\/text>.*/\1/p' "$1" | sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
}

# The gnuplot script (-g): target marks where target_us changed, an IOPS
# panel, and the legend above the panels, not beside them.
SVG=$t/targets.svg PATH=$t/gp:$PATH "$P" -g "$t/targets.gp" -o "$t/targets.png" "$t/targets.json" >/dev/null ||
	fail "iolat-plot failed on the target changes"
png_ok "$t/targets.png"
gp=$t/targets.gp
marks=$(grep -c '^set arrow .* nohead' "$gp")
[ "$marks" = 3 ] || fail "want 3 target marks (set at 5 s, changed at 15 s, removed at 30 s), got $marks"
# (Report i is at i s, give or take its random milliseconds.)
for want in '101 from first (4|5)[.]' '102 from first (14|15)[.]' '103 from first (29|30)[.]'; do
	grep -Eq "^set arrow $want" "$gp" || fail "no mark /$want/ in the script"
done
labels=$(svgtext "$t/targets.svg" | grep ' target [0-9r]' | paste -sd, -)
[ "$labels" = '/iolat-p/tight target 1000us,/iolat-p/tight target 2000us,/iolat-p/tight target removed' ] ||
	fail "the marks are labelled '$labels'"
note "target marks: $labels"
grep -q "^set title 'IOPS" "$gp" && grep -q 'using 1:8 with lines' "$gp" ||
	fail "no IOPS panel in the script"
grep -q '^set multiplot layout 4,1' "$gp" || fail "not four panels"
right=$(sed -nE 's/^set multiplot .* margins [0-9.]+,([0-9.]+),.*/\1/p' "$gp")
awk -v r="$right" 'BEGIN { exit !(r >= 0.9) }' ||
	fail "the panels end at $right of the width: the legend takes the rest"
grep -q '^set key at screen 0.5, screen .* horizontal' "$gp" || fail "the legend is not one row above the panels"
[ "$(svgtext "$t/targets.svg" | grep -cx /iolat-p/tight)" = 1 ] || fail "tight not named once in the legend"
"$P" -g "$t/nonrot.gp" -o "$t/nonrot2.png" "$t/nonrot.json" >/dev/null || fail "iolat-plot -g failed"
[ "$(grep -c '^set arrow' "$t/nonrot.gp")" = 0 ] || fail "target marks where no target changed"
note "IOPS panel, 4 panels, panels to $right of the width, legend above"

# Strings from the recording never reach gnuplot's command language:
# gnuplot runs backquoted text even inside double quotes.  Cgroup and
# device names (JSON escapes included), a target that is a string and
# the recording's own file name each try to run a command; every name
# must still be drawn, recognisably.
hostile() {
	local i n tgt dev="vd\`touch pwned-dev\`"
	local long=/h/$(printf 'L%.0s' $(seq 3000))-tail
	local names=("/h/\`touch pwned-bq\`" "/h/\$(touch pwned-dollar)"
		'/h/@GPVAL_TERM @ARG1 %s%n%d;x'
		'/h/new\nline\ttab\r\u0000nul\u001besc'
		"/h/q\\\"uote\\\" . system(\\\"touch pwned-sys\\\") . \\\""
		'/h/back\\' "$long" $'/h/bad\xff\xfeutf')
	for i in $(seq 0 9); do
		printf '{"schema":1,"tool":"iolat-top","time":%s.000,"interval_s":1.000,"lost_events":0,"cgroups":[' $((1764763200 + i))
		tgt=1000
		[ "$i" -ge 5 ] && tgt=2000
		for n in "${!names[@]}"; do
			row iolat0 false "${names[n]}" $((100 + n)) "$tgt" null 4 0 0.000 0.000
			printf ,
		done
		[ "$i" = 7 ] && tgt="\"\`touch pwned-target\`\""
		row "$dev" true /h/dev 99 "$tgt" null 2 1 3.000 1.000
		printf ']}\n'
	done
}
hostile >"$t/rec\`touch pwned-fname\`.json"
jq -e . "$t/rec\`touch pwned-fname\`.json" >/dev/null || fail "the hostile recording is not JSON"
(cd "$t" && SVG=$t/hostile.svg PATH=$t/gp:$PATH "$P" -g hostile.gp "rec\`touch pwned-fname\`.json") >"$t/out" 2>&1
rc=$?
pwned=$(cd "$t" && ls -d pwned* 2>/dev/null | paste -sd' ' -)
[ -z "$pwned" ] || fail "plotting the hostile recording ran commands: created $pwned"
[ "$rc" = 0 ] || fail "iolat-plot failed on the hostile recording: $(cat "$t/out")"
png_ok "$t/rec\`touch pwned-fname\`.png"
! grep -n 'pwned\|/h/' "$t/hostile.gp" || fail "names in the script's text"
# What the legend, the marks and the title show.
svgtext "$t/hostile.svg" >"$t/labels"
for want in "iolat0:/h/\`touch pwned-bq\`" "iolat0:/h/\$(touch pwned-dollar)" \
	    'iolat0:/h/@GPVAL_TERM @ARG1 %s%n%d;x' \
	    'iolat0:/h/new\x0aline\x09tab\x0d\x00nul\x1besc' \
	    "iolat0:/h/q\"uote\" . system(\"touch pwned-sys\") . \"" 'iolat0:/h/back\' \
	    "vd\`touch pwned-dev\`:/h/dev" "rec\`touch pwned-fname\`.json, 10 reports" \
	    "iolat0:/h/back\\ target 2000us"; do
	grep -qF -- "$want" "$t/labels" ||
		fail "nothing drawn shows '$want'; drawn: $(grep -F /h/ "$t/labels" | cut -c1-80 | paste -sd'|' -)"
done
grep -qE 'iolat0:/h/bad.*utf$' "$t/labels" || fail "the name with bytes that are not UTF-8 is not drawn"
grep -qxE '[.]{3}L{72}-tail' "$t/labels" || fail "the long name is not drawn as ... and its last 77 characters"
note "hostile names drawn, nothing run: $(grep -c /h/ "$t/labels") labels"
[ -n "${IOLAT_PLOT_KEEP:-}" ] && cp "$t"/*.png "$t"/*.json "$IOLAT_PLOT_KEEP"/
note "PNGs: $(ls "$t"/*.png | wc -l)"
