#!/usr/bin/env python3
"""Counts timestep-core's public API: what a user can name from outside the crate.

Reads rustdoc's JSON (stable rustdoc with RUSTC_BOOTSTRAP=1), walks from the
crate root through public modules and re-exports, and counts each item once:
structs, enums (and their variants), traits, functions (free functions,
inherent methods, trait methods of the crate's traits), public fields of
structs, constants (free and associated) and statics. Trait impls (Display,
From, derives) are not counted: they add no names. `#[doc(hidden)]` items are
listed apart, as they are public but not part of the documented API.

usage: scripts/core-public-items.py [--build] [--list] [--features F]
  --build       run rustdoc first (needs CARGO_TARGET_DIR or ./target)
  --list        print every item's path
  --features F  cargo features for the build (default: the crate's defaults)
"""
import collections
import json
import os
import subprocess
import sys

args = sys.argv[1:]
target = os.environ.get("CARGO_TARGET_DIR", "target")
if "--build" in args:
    cmd = ["cargo", "rustdoc", "-p", "timestep-core", "--lib", "--quiet"]
    if "--features" in args:
        cmd += ["--features", args[args.index("--features") + 1]]
    cmd += ["--", "-Z", "unstable-options", "--output-format", "json"]
    subprocess.run(cmd, check=True, env={**os.environ, "RUSTC_BOOTSTRAP": "1"})
doc = json.load(open(os.path.join(target, "doc", "timestep_core.json")))
index = doc["index"]


def kind(item):
    inner = item["inner"]
    return next(iter(inner)) if isinstance(inner, dict) else inner


def hidden(item):
    return any("doc(hidden)" in str(a) for a in item.get("attrs", []))


counts = collections.Counter()
hidden_items = []
seen = set()
listing = []


def count(key, path, item):
    if hidden(item):
        hidden_items.append(f"{key} {path}")
        return
    counts[key] += 1
    listing.append(f"{key:9} {path}")


def walk_impls(impls, path):
    for impl_id in impls:
        impl = index.get(str(impl_id))
        if impl is None:
            continue
        body = impl["inner"]["impl"]
        if body.get("trait") is not None or body.get("is_synthetic") or body.get("blanket_impl"):
            continue
        for member in body["items"]:
            m = index.get(str(member))
            if m is None or m["visibility"] != "public":
                continue
            k = kind(m)
            name = f"{path}::{m['name']}"
            if k == "function":
                count("fn", name, m)
            elif k == "assoc_const":
                count("const", name, m)


def walk(item_id, path):
    if item_id in seen:
        return
    item = index.get(str(item_id))
    if item is None:  # an item of another crate (a re-export of std's Instant)
        return
    seen.add(item_id)
    k = kind(item)
    body = item["inner"][k] if isinstance(item["inner"], dict) else None
    name = f"{path}::{item['name']}" if item.get("name") else path
    if k == "module":
        for child in body["items"]:
            walk(child, name if not body.get("is_crate") else "timestep_core")
    elif k == "use":
        if body.get("id") is not None:
            target_item = index.get(str(body["id"]))
            walk(body["id"], path)
    elif k == "struct":
        count("struct", name, item)
        fields = body["kind"].get("plain", {}).get("fields", []) if isinstance(body["kind"], dict) else []
        for f in fields:
            fi = index[str(f)]
            if fi["visibility"] == "public":
                count("field", f"{name}.{fi['name']}", fi)
        tup = body["kind"].get("tuple") if isinstance(body["kind"], dict) else None
        for f in tup or []:
            if f is not None and index[str(f)]["visibility"] == "public":
                count("field", f"{name}.{index[str(f)]['name']}", index[str(f)])
        walk_impls(body["impls"], name)
    elif k == "enum":
        count("enum", name, item)
        for v in body["variants"]:
            count("variant", f"{name}::{index[str(v)]['name']}", index[str(v)])
        walk_impls(body["impls"], name)
    elif k == "trait":
        count("trait", name, item)
        for member in body["items"]:
            m = index[str(member)]
            if kind(m) == "function":
                count("fn", f"{name}::{m['name']}", m)
            elif kind(m) == "assoc_const":
                count("const", f"{name}::{m['name']}", m)
    elif k == "function":
        count("fn", name, item)
    elif k == "constant":
        count("const", name, item)
    elif k == "static":
        count("static", name, item)
    elif k == "type_alias":
        count("type", name, item)
    elif k == "macro":
        count("macro", name, item)


walk(doc["root"], "timestep_core")
if "--list" in args:
    print("\n".join(sorted(listing)))
order = ["struct", "enum", "variant", "trait", "fn", "field", "const", "static", "type"]
print("  ".join(f"{counts[k]} {k}s" for k in order if counts[k] or k in ("struct", "enum", "fn", "field", "const")))
if hidden_items:
    print(f"doc(hidden), not counted: {', '.join(sorted(hidden_items))}")
