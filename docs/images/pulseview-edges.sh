#!/bin/bash
# Regenerates docs/images/pulseview-edges-{fit,start,zoom}.png, the PulseView
# screenshots of docs/lab.md section 9 ("A good capture"). The capture is
# SYNTHETIC: tests/edges/make_capture.py draws the edges the edge protocol
# puts for the DWT samples of tests/data/edges/freertos-qemu-edges.raw (an
# edges=on capture of the emulated bench), with a 30 ns offset and 8 ns
# jitter. No board was measured. No test runs this script.
#
#   docs/images/pulseview-edges.sh
#
# Needs (Debian): pulseview sigrok-cli xvfb xdotool imagemagick, python3.
# PulseView runs under its own Xvfb display (the first free one, -displayfd)
# with a settings file of its own in a scratch directory.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/docs/images
python=${PYTHON:-/usr/bin/python3}

missing=""
for tool in "$python" sigrok-cli pulseview Xvfb xdotool import convert; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "pulseview-edges.sh: missing:$missing" >&2
    echo "  apt-get install -y pulseview sigrok-cli xvfb xdotool imagemagick python3" >&2
    exit 1
fi

scratch=$(mktemp -d)
xvfb_pid=""
pv_pid=""
cleanup() {
    if [ -n "$pv_pid" ]; then kill "$pv_pid" 2>/dev/null || true; fi
    if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

# The capture: VCD (1 ns), then srzip at 25 MHz as the tests use.
"$python" "$repo/tests/edges/make_capture.py" \
    "$repo/tests/data/edges/freertos-qemu-edges.raw" "$scratch/cap" \
    --offset-ns 30 --jitter-ns 8 --seed 1
sigrok-cli -i "$scratch/cap/capture.vcd" -I vcd:downsample=40 \
    -o "$scratch/edges.sr" -O srzip
sigrok-cli -i "$scratch/edges.sr" --show

# A display of its own; Xvfb writes the number it took to fd 3.
Xvfb -displayfd 3 -screen 0 1400x700x24 -nolisten tcp 3>"$scratch/display" \
    >"$scratch/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do
    [ -s "$scratch/display" ] && break
    sleep 0.2
done
[ -s "$scratch/display" ] || { echo "pulseview-edges.sh: Xvfb did not start" >&2; exit 1; }
DISPLAY=:$(head -n1 "$scratch/display")
export DISPLAY

# PulseView with fresh settings: taller rows, no hover marker.
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/home/.config
mkdir -p "$XDG_CONFIG_HOME/sigrok"
printf '[Settings]\nView_DefaultLogicHeight=60\nView_ShowHoverMarker=false\n' \
    >"$XDG_CONFIG_HOME/sigrok/PulseView.conf"
pulseview "$scratch/edges.sr" >"$scratch/pulseview.log" 2>&1 &
pv_pid=$!

win=""
for _ in $(seq 60); do
    win=$(xdotool search --name '^edges\.sr - PulseView$' 2>/dev/null | head -n1) || true
    [ -n "$win" ] && break
    sleep 0.5
done
[ -n "$win" ] || { echo "pulseview-edges.sh: no PulseView window" >&2; exit 1; }
for _ in $(seq 60); do
    grep -q "Acquisition took" "$scratch/pulseview.log" && break
    sleep 0.5
done
sleep 1

# Screen x 75 is time 0 of the viewport (the channel names sit left of it);
# one wheel notch zooms by 1.5 about the pointer.
shot() {
    xdotool mousemove 1399 699
    sleep 1
    import -window root "$scratch/shot.png"
    convert "$scratch/shot.png" -crop 1400x380+0+0 +repage -strip "$out/$1"
}
drag() { # from x1 y1 to x2 y2, in steps PulseView sees as a drag
    xdotool mousemove "$1" "$2" mousedown 1
    xdotool mousemove $(( ($1 + $3) / 2 )) $(( ($2 + $4) / 2 ))
    xdotool mousemove "$3" "$4" mouseup 1
    sleep 0.5
}
zoom_in() { # notches at screen x
    xdotool mousemove "$2" 250
    sleep 0.2
    for _ in $(seq "$1"); do
        xdotool click 4
        sleep 0.2
    done
}

xdotool windowsize "$win" 1400 700
sleep 1
# The default layout puts MK's row under the time ruler: move the rows down.
drag 700 500 700 540
xdotool windowfocus --sync "$win" key f   # zoom to fit
sleep 1
shot pulseview-edges-fit.png
zoom_in 5 80                            # 0 to about 8.5 ms
drag 700 500 745 500                    # time 0 back at the left edge
shot pulseview-edges-start.png
zoom_in 15 87                           # 0 to about 19 us
shot pulseview-edges-zoom.png

ls -l "$out"/pulseview-edges-*.png
