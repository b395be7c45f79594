#!/usr/bin/env python3
"""Checks the tree against ARCHITECTURE.md: every #include between folders goes along a drawn
dependency and names the other folder's public header; no folder but proto/ includes a format's own
header (threadx.h, nuttx.h, qnx.h, ...; export/'s .trx writer may read threadx.h) or names what
it declares (tt_qnx_reader, TT_NUTTX_...); no format name is compared outside proto/;
the dashboard (web/) puts text into the page only through web/js/dom.js (no HTML sink: innerHTML,
outerHTML, insertAdjacentHTML, document.write) and index.html holds no inline script, style or
event handler (the Content-Security-Policy tracetapd sends would block them).
Exit 0 when the tree matches, 1 with one line per violation (file:line: what is wrong)."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))

# folder -> folders it may include from (the drawing in ARCHITECTURE.md)
DEPS = {
    'proto': set(),
    'analysis': {'proto'},
    'fw': set(),
    'probe': {'proto'},
    'export': {'proto'},
    'daemon': {'proto', 'analysis', 'fw', 'probe', 'export'},
    'client': {'proto', 'analysis', 'fw', 'probe', 'export', 'daemon'},
}
# folder -> headers other folders may include (None: any header but a private *_int.h)
PUBLIC = {'analysis': {'analysis.h'}, 'fw': {'fw.h'}, 'export': {'export.h', 'record_json.h'}}
# (from, to) -> the only headers that edge may name
EDGE = {('probe', 'proto'): {'plan.h'}}
FORMATS = ('threadx', 'nuttx', 'qnx')
# A format's own headers in proto/ (threadx.h, nuttx_int.h, ...): the format's room, for proto/
# and tests only; every other folder reaches a format through reader.h's ops. The exception:
# export/'s .trx writer is TraceX's file of ThreadX's trace buffer, so it reads ThreadX's header.
FORMAT_HEADER = re.compile(r'^(%s)(_\w+)?\.h$' % '|'.join(FORMATS))
FORMAT_HEADER_OK = {('export', 'threadx.h')}
# ... nor names what such a header declares (tt_qnx_reader, tt_nuttx_layout_set, TT_QNX_...):
# an extern declaration would dodge the include rule. The same exception: export_trx.c.
FORMAT_NAME = re.compile(r'\b(?:tt|TT)_(%s)_\w+' % '|'.join(FORMATS + tuple(f.upper() for f in FORMATS)))
FORMAT_NAME_OK = {os.path.join('export', 'export_trx.c')}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
CMP = re.compile(r'str(?:n)?(?:case)?cmp\s*\([^;]*"(%s)"' % '|'.join(FORMATS))


def folder_of(path):
    rel = os.path.relpath(path, ROOT)
    return rel.split(os.sep)[0]


def sources(folder):
    for dp, _, fs in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                yield os.path.join(dp, f)


HTML_SINK = re.compile(r'\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write(ln)?\s*\(')
INLINE = re.compile(r'<script(?![^>]*\ssrc=)[^>]*>|<style\b|\sstyle\s*=|\son[a-z]+\s*=', re.I)


def web_rules():
    """Text reaches the page through dom.js only; index.html has nothing inline."""
    bad = []
    web = os.path.join(ROOT, 'web')
    for dirpath, _, names in os.walk(web):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            rule = HTML_SINK if name.endswith('.js') else INLINE if name.endswith('.html') else None
            if not rule:
                continue
            with open(path, encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    if name.endswith('.js') and line.lstrip().startswith('//'):
                        continue
                    m = rule.search(line)
                    if m:
                        what = 'an HTML sink (build elements with dom.js h())' if rule is HTML_SINK \
                            else 'inline script, style or handler (the CSP blocks it)'
                        bad.append(f'{rel}:{n}: {m.group(0).strip()}: {what}')
    return bad


def main():
    by_name = {}
    for folder in DEPS:
        for p in sources(folder):
            by_name.setdefault(os.path.basename(p), set()).add(folder)
    bad = []
    for folder in DEPS:
        for p in sources(folder):
            rel = os.path.relpath(p, ROOT)
            with open(p, encoding='utf-8', errors='replace') as fh:
                for n, line in enumerate(fh, 1):
                    m = INC.match(line)
                    if m:
                        inc = m.group(1)
                        local = os.path.normpath(os.path.join(os.path.dirname(p), inc))
                        if os.path.exists(local):
                            target = folder_of(local)
                        elif inc == 'tt_config.h':
                            continue
                        else:
                            owners = by_name.get(os.path.basename(inc), set())
                            if len(owners) != 1:
                                bad.append(f'{rel}:{n}: "{inc}" is not a header of the tree, or of more than one folder')
                                continue
                            target = next(iter(owners))
                        if target != folder and target not in DEPS[folder]:
                            bad.append(f'{rel}:{n}: {folder}/ includes {target}/ ("{inc}"), against ARCHITECTURE.md')
                        elif (folder, target) in EDGE and os.path.basename(inc) not in EDGE[(folder, target)]:
                            bad.append(f'{rel}:{n}: {folder}/ may include only {", ".join(sorted(EDGE[(folder, target)]))} of {target}/, not "{inc}"')
                        elif target != folder and os.path.basename(inc).endswith('_int.h'):
                            bad.append(f'{rel}:{n}: "{inc}" is private to {target}/')
                        elif target == 'proto' != folder and FORMAT_HEADER.match(os.path.basename(inc)) \
                                and (folder, os.path.basename(inc)) not in FORMAT_HEADER_OK:
                            bad.append(f'{rel}:{n}: "{inc}" is a format\'s own header: {folder}/ reaches formats through proto/reader.h only')
                        elif target != folder and target in PUBLIC and os.path.basename(inc) not in PUBLIC[target]:
                            bad.append(f'{rel}:{n}: "{inc}" is private to {target}/ (its public headers: {", ".join(sorted(PUBLIC[target]))})')
                    if folder != 'proto' and rel not in FORMAT_NAME_OK:
                        c = FORMAT_NAME.search(line)
                        if c:
                            bad.append(f'{rel}:{n}: {c.group(0)}: a format\'s own name outside proto/ (use reader.h\'s ops)')
                    if folder != 'proto':
                        c = CMP.search(line)
                        if c:
                            bad.append(f'{rel}:{n}: format name "{c.group(1)}" compared outside proto/')
    bad += web_rules()
    for b in bad:
        print(b)
    if bad:
        print(f'check-arch: {len(bad)} violation(s)', file=sys.stderr)
        return 1
    print('check-arch: the tree matches ARCHITECTURE.md')
    return 0


if __name__ == '__main__':
    sys.exit(main())
