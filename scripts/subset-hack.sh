#!/bin/sh
# Makes assets/fonts/Hack-Regular-subset.ttf, the page's only font (src/render/overlay/style.rs),
# from egui's Hack-Regular.ttf (the epaint_default_fonts crate in cargo's registry).
#
# The whole Hack is 1573 glyphs, 309 KB of the page's wasm (148 KB gzipped); the page draws
# English text, figures and a few symbols. Kept (429 glyphs, 83 KB, 42 KB gzipped): ASCII and
# Latin-1, a few letters of Latin Extended-A, the Greek alphabet, general punctuation, super- and
# subscripts, the euro, letterlike symbols, the plain arrows, the maths operators a figure uses,
# block elements, triangles, squares and circles, check marks. A test (`cargo test page_font`)
# checks that the subset has every character the sources write that the whole Hack has. Dropped:
# Cyrillic, most of Latin Extended, box drawing, Powerline, the rarer symbols (a whole block of
# maths operators alone was 16 KB gzipped, Cyrillic 16 KB). The TrueType hinting stays, so the
# glyphs kept are drawn exactly as before (without it: 26 KB gzipped, drawn by skrifa's autohinter
# instead). Every name record stays: the copyright notices, and the name Hack, which the licence
# lets a modified copy keep (assets/fonts/Hack-LICENSE.txt).
#
# Needs fontTools (`pip install fonttools`); rerun after changing the ranges, then commit the font.
set -eu
cd "$(dirname "$0")/.."
src=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/epaint_default_fonts-0.37.*/fonts/Hack-Regular.ttf | tail -n 1)
pyftsubset "$src" \
  --unicodes="$(tr -d ' \n' <<'EOF'
U+0020-007E,U+00A0-00FF,U+0152-0153,U+015C-015D,U+0391-03A9,U+03B1-03C9,
U+2000-206F,U+2070-209F,U+20AC,U+2100-214F,U+2190-2199,
U+2202,U+2206,U+2208,U+2211-2213,U+2215,U+2219-221A,U+221D-221E,U+2248,U+2260-2261,U+2264-2265,
U+2580-259F,U+25A0-25A1,U+25AA-25AB,U+25B2-25C4,U+25C6-25CB,U+25CF,U+25FB-25FE,U+2713,U+2717,U+FFFD
EOF
)" \
  --name-IDs='*' --name-languages='*' --name-legacy --notdef-outline \
  --output-file=assets/fonts/Hack-Regular-subset.ttf
