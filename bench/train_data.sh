#!/usr/bin/env bash
# The inputs of the default model's training (nbs/14_train), made here (Debian, internet) and carried to the GPU machine:
#   .train/kjv.txt.gz         the King James Bible, one verse a line, dumped by Debian's bible-kjv (public domain)
#   .train/words.txt.gz       Debian's wamerican word list (SCOWL; free to use, see its copyright file)
#   .train/espeakng_loader/   espeak-ng 1.52 as a library with its English data, from the espeakng-loader wheel (GPL-3.0)
#   .train/flite.tar.xz       Debian's flite 2.2 with its voices and libasound2 (BSD-style; LGPL-2.1), unpacked to /tmp/flite there
#   .train/festival.tar.xz    Debian's festival 2.5 with its ked diphone voice, its lexicons and the shared libraries it
#                             loads (free licences; see each package's copyright file), copied from this machine's installed festival
#                             (apt-get install festival festvox-kdlpc16k), unpacked to /tmp/festival there; its
#                             bin/festival sets FESTLIBDIR, FESTDATADIR and LD_LIBRARY_PATH for festival alone
#   .train/wheels/            what `ta.train` imports and the GPU machine lacks, for its Python 3.12
# Usage: bash bench/train_data.sh        (from the repository root; .train/ is git-ignored)
set -euo pipefail
out=.train; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
(cd "$tmp" && apt-get download -q bible-kjv bible-kjv-text wamerican >/dev/null && for d in *.deb; do dpkg -x "$d" root; done)
(cd "$tmp" && mkdir fl && cd fl && apt-get download -q flite libflite1 libasound2 >/dev/null && for d in *.deb; do dpkg -x "$d" root; done \
  && rm -rf root/usr/share && tar cf - -C root . | xz -9 -T2 > flite.tar.xz) && mv "$tmp/fl/flite.tar.xz" "$out/"
command -v festival >/dev/null && [ -d /usr/share/festival/voices/english/ked_diphone ] ||
  { echo "festival and its ked voice are not installed: apt-get install festival festvox-kdlpc16k" >&2; exit 1; }
fe="$tmp/festival"; mkdir -p "$fe/bin" "$fe/lib" "$fe/share"
cp -L "$(command -v festival)" "$fe/lib/festival.bin" && cp -rL /usr/share/festival "$fe/share/"
find "$fe/share/festival/voices" -mindepth 2 -maxdepth 2 ! -name ked_diphone -exec rm -rf {} +   # the one voice ta uses (nbs/13_corpus)
ldd "$fe/lib/festival.bin" | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' | xargs -r cp -L -t "$fe/lib"
cat > "$fe/bin/festival" <<'WRAP'
#!/bin/sh
# festival from this folder's copy: its Scheme files and voices (FESTLIBDIR, FESTDATADIR; Debian's festival ignores --libdir), its libraries
d=$(dirname "$(readlink -f "$0")")/..
FESTLIBDIR="$d/share/festival" FESTDATADIR="$d/share/festival" LD_LIBRARY_PATH="$d/lib" exec "$d/lib/festival.bin" "$@"
WRAP
chmod +x "$fe/bin/festival"
tar cf - -C "$fe" . | xz -9 -T2 > "$out/festival.tar.xz"
(cd "$tmp/root/usr/lib" && ../bin/bible -d bible.data -f "Gen1:1-Rev22:21") | gzip -9n > "$out/kjv.txt.gz"   # bible cannot open a long -d path
gzip -9nc "$tmp/root/usr/share/dict/american-english" > "$out/words.txt.gz"
pip_get() { python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$1" "${@:2}"; }
pip_get "$tmp" espeakng-loader==0.2.4
rm -rf "$out/espeakng_loader"; (cd "$out" && unzip -q "$tmp"/espeakng_loader-*.whl 'espeakng_loader/*')
rm "$out"/espeakng_loader/libespeak-ng.so.*   # copies of libespeak-ng.so, the one loaded
find "$out/espeakng_loader/espeak-ng-data" -maxdepth 1 -name '*_dict' ! -name en_dict -delete
rm -rf "$out/wheels"; pip_get "$out/wheels" soundfile==0.14.0 cffi==2.1.1 pycparser==3.12 soxr==1.1.0 jiwer==4.0.0 rapidfuzz==3.14.6 \
  whisper-normalizer==0.1.15 more-itertools==11.2.1 indic-numtowords==1.1.0 text2num==3.1.0 \
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 pydantic-settings==2.16.3 python-dotenv==1.2.4   # ta.settings (stop 48: without them the call died at import; stop 50: pydantic-settings imports dotenv)
du -sh "$out"/*
