#!/usr/bin/env python3
"""Rebuilds assets/fonts/ from the fonts egui ships (epaint_default_fonts in Cargo's registry).

The app's two faces are egui's own, Hack and Ubuntu Light, with every glyph and layout table
kept and the TrueType hinting programs removed: egui hints outlines itself when a face has
none (skrifa's autohinter), and the programs were half of each file, so the browser page
downloads 172 KiB (gzip) less. The Ubuntu Font Licence asks a modified face to carry the
original's name with "derivative X" appended; the name table says so.

    python3 -m venv target/fonts-venv && target/fonts-venv/bin/pip install fonttools==4.68.0
    target/fonts-venv/bin/python scripts/build-fonts.py
"""
import glob
import os
import shutil
import sys

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "assets", "fonts")


def egui_fonts():
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", "epaint_default_fonts-0.37.*", "fonts")))
    if not found:
        sys.exit("epaint_default_fonts 0.37 is not in Cargo's registry: run `cargo fetch` first")
    return found[-1]


def unhinted(src, dst, rename=None):
    font = TTFont(src)
    options = subset.Options()
    options.hinting = False
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    options.legacy_kern = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=font.getBestCmap().keys())
    sub.subset(font)
    if rename:
        # The names a face is known by (family, unique, full, PostScript, typographic family),
        # each the original's with the derivative's name appended.
        for rec in font["name"].names:
            if rec.nameID in (1, 3, 4, 16, 18):
                rec.string = f"{rec.toUnicode()} derivative {rename}"
            elif rec.nameID == 6:
                rec.string = f"{rec.toUnicode()}-derivative-{rename}"
    font.save(dst)


def main():
    src = egui_fonts()
    os.makedirs(OUT, exist_ok=True)
    unhinted(os.path.join(src, "Hack-Regular.ttf"), os.path.join(OUT, "Hack-Regular-unhinted.ttf"))
    unhinted(
        os.path.join(src, "Ubuntu-Light.ttf"),
        os.path.join(OUT, "Ubuntu-Light-derivative-Lanescope.ttf"),
        rename="Lanescope",
    )
    for lic in ["Hack-Regular.txt", "UFL.txt"]:
        shutil.copy(os.path.join(src, lic), os.path.join(OUT, lic))
    for f in sorted(os.listdir(OUT)):
        print(f"{f}: {os.path.getsize(os.path.join(OUT, f))} bytes")


if __name__ == "__main__":
    main()
