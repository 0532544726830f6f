#!/usr/bin/env python3
"""Compute exact facts about frame-time capture files (PresentMon 1.x/2.x, OCAT, CapFrameX CSV).

Usage: python3 analyze.py FILE [FILE...]   (prints a Markdown block per file)
       python3 analyze.py --json FILE ...   (prints JSON)

Definitions (kept deliberately simple so they can become test expectations):
  * Lines starting with '//' are comment/metadata lines (CapFrameX); the first
    non-'//' non-empty line is the column header.  A UTF-8 BOM is stripped.
  * Column names are matched case-insensitively.
  * A row is a data row if it has at least as many fields as the header has
    (CapFrameX/OCAT may have trailing blank fields); fields beyond are ignored.
  * Group key = (Application, ProcessID, SwapChainAddress).
  * "not displayed" for a row:
      - if a 'Dropped' column exists: Dropped == '1'
      - else if 'MsUntilDisplayed' exists (PresentMon 2.4+): value is 'NA'
      - else if 'DisplayedTime' exists (PresentMon 2.0-2.3 format): value is 'NA'
      - else if 'MsBetweenDisplayChange' exists: value is 'NA'
  * displayed-interval column: MsBetweenDisplayChange if present, else
    DisplayedTime (2.0 format; that is the time the frame stayed on screen).
  * median: exact decimal median (mean of the two middle values for even n)
    over the displayed rows' parsed numbers (NA excluded); zeros are included.
  * implied Hz = 1000 / median, rounded to 4 decimals.
"""
import csv, io, json, statistics, sys, collections, os, hashlib
from decimal import Decimal, InvalidOperation


def col(header, *names):
    low = [h.strip().lower() for h in header]
    for n in names:
        if n.lower() in low:
            return low.index(n.lower())
    return None


def fnum(s):
    try:
        d = Decimal(s.strip())
        return d if d.is_finite() else None
    except (TypeError, ValueError, InvalidOperation, AttributeError):
        return None


def fmt(d):
    """Plain decimal string without trailing zeros (exact)."""
    if d is None:
        return None
    if isinstance(d, Decimal):
        t = format(d.normalize(), 'f')
        return t
    return str(d)


def dmedian(vals):
    """Exact decimal median (mean of the two middle values for even n)."""
    v = sorted(vals)
    n = len(v)
    if n % 2:
        return v[n // 2]
    return ((v[n // 2 - 1] + v[n // 2]) / 2).normalize()


def analyze(path):
    raw = open(path, 'rb').read()
    f = {}
    f['file'] = os.path.basename(path)
    f['bytes'] = len(raw)
    f['sha256'] = hashlib.sha256(raw).hexdigest()
    f['bom'] = raw.startswith(b'\xef\xbb\xbf')
    if f['bom']:
        raw = raw[3:]
    f['crlf_lines'] = raw.count(b'\r\n')
    f['lf_lines'] = raw.count(b'\n')
    f['line_endings'] = ('CRLF' if f['crlf_lines'] == f['lf_lines'] and f['lf_lines'] else
                         'LF' if f['crlf_lines'] == 0 else 'mixed')
    f['ends_with_newline'] = raw.endswith(b'\n')
    text = raw.decode('utf-8')
    lines = text.splitlines()
    comment = [l for l in lines if l.startswith('//')]
    f['comment_lines'] = len(comment)
    f['comment_lines_before_header'] = 0
    rest = []
    hdr_seen = False
    for l in lines:
        if not hdr_seen and (l.startswith('//') or not l.strip()):
            if l.startswith('//'):
                f['comment_lines_before_header'] += 1
            continue
        hdr_seen = True
        rest.append(l)
    f['empty_lines'] = sum(1 for l in lines if not l.strip())
    rows = list(csv.reader(rest))
    header = rows[0]
    body = [r for r in rows[1:] if r and not (len(r) == 1 and not r[0].strip()) and not r[0].startswith('//')]
    f['header'] = ','.join(header)
    f['columns'] = len(header)
    short = [r for r in body if len(r) < len(header)]
    f['short_rows'] = len(short)
    f['long_rows'] = sum(1 for r in body if len(r) > len(header))
    f['rows'] = len(body)
    cells = [c for r in body for c in r]
    f['na_cells'] = sum(1 for c in cells if c.strip() == 'NA')
    na_cols = collections.Counter()
    for r in body:
        for i, c in enumerate(r[:len(header)]):
            if c.strip() == 'NA':
                na_cols[header[i]] += 1
    f['na_by_column'] = dict(na_cols)

    ia = col(header, 'Application', 'ProcessName')
    ip = col(header, 'ProcessID')
    isc = col(header, 'SwapChainAddress')
    idr = col(header, 'Dropped')
    idc = col(header, 'MsBetweenDisplayChange')
    idt = col(header, 'DisplayedTime')
    iud = col(header, 'MsUntilDisplayed')
    ibp = col(header, 'MsBetweenPresents', 'FrameTime')
    ift = col(header, 'FrameType')
    itm = col(header, 'TimeInSeconds', 'TimeInMs', 'CPUStartTime', 'CPUStartTimeInMs', 'CPUStartQPCTime', 'TimeInQPC', 'CPUStartQPC')
    ipm = col(header, 'PresentMode')

    if idr is not None:
        rule = 'Dropped==1'
        nd = lambda r: r[idr].strip() == '1'
    elif iud is not None:
        rule = header[iud] + '==NA'
        nd = lambda r: r[iud].strip() == 'NA'
    elif idt is not None:
        rule = 'DisplayedTime==NA'
        nd = lambda r: r[idt].strip() == 'NA'
    elif idc is not None:
        rule = header[idc] + '==NA'
        nd = lambda r: r[idc].strip() == 'NA'
    else:
        rule = None
        nd = lambda r: False
    f['not_displayed_rule'] = rule
    ival = idc if idc is not None else idt
    f['display_interval_column'] = header[ival] if ival is not None else None
    f['frametime_column'] = header[ibp] if ibp is not None else None

    if idr is not None:
        f['dropped_values'] = dict(collections.Counter(r[idr] for r in body))

    groups = collections.OrderedDict()
    for r in body:
        key = (r[ia] if ia is not None else '',
               r[ip] if ip is not None else '',
               r[isc] if isc is not None else '')
        groups.setdefault(key, []).append(r)

    gl = []
    for key, rs in groups.items():
        g = {'Application': key[0], 'ProcessID': key[1], 'SwapChainAddress': key[2],
             'rows': len(rs)}
        ndr = [r for r in rs if nd(r)]
        dr = [r for r in rs if not nd(r)]
        g['not_displayed'] = len(ndr)
        g['displayed'] = len(dr)
        if ival is not None:
            vals = [fnum(r[ival]) for r in dr]
            nav = sum(1 for v in vals if v is None)
            vals = [v for v in vals if v is not None]
            g['displayed_interval_NA'] = nav
            g['displayed_interval_zero'] = sum(1 for v in vals if v == 0.0)
            if vals:
                m = dmedian(vals)
                g['median_display_interval_ms'] = m
                g['implied_hz'] = round(1000.0 / float(m), 4) if m else None
                nz = [v for v in vals if v != 0.0]
                if len(nz) != len(vals) and nz:
                    g['median_display_interval_ms_excl_zero'] = dmedian(nz)
        if ibp is not None:
            bp = [fnum(r[ibp]) for r in rs]
            bp = [v for v in bp if v is not None]
            if bp:
                g['median_' + header[ibp]] = dmedian(bp)
                g['mean_' + header[ibp]] = round(float(sum(bp)) / len(bp), 4)
        if itm is not None:
            tv = [fnum(r[itm]) for r in rs]
            tv = [v for v in tv if v is not None]
            if tv:
                g['time_column'] = header[itm]
                g['time_first'] = tv[0]
                g['time_last'] = tv[-1]
                g['time_monotonic'] = all(b >= a for a, b in zip(tv, tv[1:]))
        if ibp is not None:
            bp = [fnum(r[ibp]) for r in rs]
            bp = [v for v in bp if v is not None]
            g['sum_' + header[ibp]] = sum(bp) if bp else None
        if ift is not None:
            g['FrameType'] = dict(collections.Counter(r[ift] for r in rs))
        if ipm is not None:
            g['PresentMode'] = dict(collections.Counter(r[ipm] for r in rs))
        gl.append(g)
    f['groups'] = gl
    f['apps'] = dict(collections.Counter(k[0] for k in groups))
    top = max(gl, key=lambda g: g['rows'])  # ties: first in file order
    ties = [g for g in gl if g['rows'] == top['rows']]
    f['top_group'] = {k: top[k] for k in ('Application', 'ProcessID', 'SwapChainAddress', 'rows',
                                         'not_displayed', 'displayed') if k in top}
    for k in ('median_display_interval_ms', 'implied_hz', 'median_display_interval_ms_excl_zero',
              'time_column', 'time_first', 'time_last', 'time_monotonic') + tuple(k for k in top if k.startswith('sum_') or k.startswith('median_Ms') or k.startswith('median_ms') or k.startswith('median_Frame')):
        if k in top:
            f['top_group'][k] = top[k]
    f['top_group_tied'] = len(ties) > 1
    nondwm = [g for g in gl if g['Application'].lower() != 'dwm.exe']
    if nondwm and nondwm != gl:
        t2 = max(nondwm, key=lambda g: g['rows'])
        f['top_non_dwm_group'] = {k: t2[k] for k in ('Application', 'ProcessID', 'SwapChainAddress', 'rows',
                                  'not_displayed', 'displayed', 'median_display_interval_ms', 'implied_hz') if k in t2}
        f['top_non_dwm_tied'] = sum(1 for g in nondwm if g['rows'] == t2['rows']) > 1
    # app-level (Application name only) aggregation, since some tools group by name
    byapp = collections.Counter()
    for g in gl:
        byapp[g['Application']] += g['rows']
    f['rows_by_application'] = dict(byapp)
    byap = collections.Counter()
    for g in gl:
        byap[(g['Application'], g['ProcessID'])] += g['rows']
    f['rows_by_application_pid'] = {f'{a}|{p}': n for (a, p), n in byap.items()}
    return f


def md(f):
    o = []
    o.append(f"#### `{f['file']}`\n")
    o.append(f"- sha256: `{f['sha256']}`")
    o.append(f"- size: {f['bytes']} bytes; data rows: {f['rows']}; columns: {f['columns']}")
    o.append(f"- BOM: {'yes (UTF-8 EF BB BF)' if f['bom'] else 'no'}; line endings: {f['line_endings']} "
             f"({f['lf_lines']} newlines, {f['crlf_lines']} CRLF); trailing newline: {f['ends_with_newline']}")
    o.append(f"- `//` lines: {f['comment_lines']} ({f['comment_lines_before_header']} before the header); empty lines: {f['empty_lines']}")
    o.append(f"- rows with fewer fields than header: {f['short_rows']}; with more: {f['long_rows']}")
    o.append(f"- NA cells: {f['na_cells']}" + (f" (by column: {f['na_by_column']})" if f['na_cells'] else ''))
    o.append(f"- not-displayed rule: {f['not_displayed_rule']}; display-interval column: {f['display_interval_column']}; frame-time column: {f['frametime_column']}")
    if 'dropped_values' in f:
        o.append(f"- Dropped column values: {f['dropped_values']}")
    o.append(f"- header: `{f['header'][:400]}{'…' if len(f['header'])>400 else ''}`")
    o.append(f"- swap chains ({len(f['groups'])}):\n")
    o.append("| Application | ProcessID | SwapChainAddress | rows | not displayed | displayed | median display interval ms | implied Hz | median frame time ms |")
    o.append("|---|---|---|---|---|---|---|---|---|")
    for g in f['groups']:
        mft = next((v for k, v in g.items() if k.startswith('median_') and k not in ('median_display_interval_ms', 'median_display_interval_ms_excl_zero')), None)
        mdi = g.get('median_display_interval_ms')
        hz = g.get('implied_hz')
        o.append(f"| {g['Application']} | {g['ProcessID']} | {g['SwapChainAddress']} | {g['rows']} | {g['not_displayed']} | {g['displayed']} | "
                 f"{fmt(mdi) if mdi is not None else '-'} | {hz if hz else '-'} | {fmt(mft) if mft is not None else '-'} |")
    t = f['top_group']
    o.append("")
    o.append(f"- rows by Application name: {f['rows_by_application']}")
    o.append(f"- rows by (Application, ProcessID): {f['rows_by_application_pid']}")
    o.append(f"- **single-app summary** (swap chain with most rows{', TIED' if f['top_group_tied'] else ''}): "
             f"`{t['Application']}` pid {t['ProcessID']} swapchain {t['SwapChainAddress']}: {t['rows']} frames, "
             f"{t['not_displayed']} not displayed/dropped, {t['displayed']} displayed, median displayed interval "
             f"{fmt(t.get('median_display_interval_ms'))} ms -> {t.get('implied_hz')} Hz")
    if 'median_display_interval_ms_excl_zero' in t:
        o.append(f"  (displayed rows include zero intervals; median excluding zeros = {fmt(t['median_display_interval_ms_excl_zero'])})")
    if 'top_non_dwm_group' in f:
        t2 = f['top_non_dwm_group']
        o.append(f"- top non-dwm swap chain{' (TIED)' if f['top_non_dwm_tied'] else ''}: `{t2['Application']}` pid {t2['ProcessID']} swapchain {t2['SwapChainAddress']}: "
                 f"{t2['rows']} frames, {t2['not_displayed']} not displayed, median displayed interval {fmt(t2.get('median_display_interval_ms'))} ms -> {t2.get('implied_hz')} Hz")
    extra = [g for g in f['groups'] if g.get('FrameType') or g.get('displayed_interval_NA') or g.get('displayed_interval_zero')]
    for g in extra:
        bits = []
        if g.get('FrameType'):
            bits.append(f"FrameType={g['FrameType']}")
        if g.get('displayed_interval_NA'):
            bits.append(f"displayed rows with NA interval={g['displayed_interval_NA']}")
        if g.get('displayed_interval_zero'):
            bits.append(f"displayed rows with 0 interval={g['displayed_interval_zero']}")
        o.append(f"  - {g['Application']}/{g['ProcessID']}/{g['SwapChainAddress']}: " + '; '.join(bits))
    return '\n'.join(o) + '\n'


if __name__ == '__main__':
    args = sys.argv[1:]
    js = False
    if args and args[0] == '--json':
        js = True
        args = args[1:]
    res = [analyze(p) for p in args]
    if js:
        print(json.dumps(res, indent=1, default=fmt))
    else:
        for r in res:
            print(md(r))
