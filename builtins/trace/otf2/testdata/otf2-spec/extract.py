# Lists the record kinds of the OTF2 layout files (share/otf2/otf2.defs, otf2.events)
# with the version that introduced each record and attribute; see README.md.
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import otf2
def attrs(r):
    out = []
    for a in r.attributes:
        t = a.type
        tn = str(t)
        if isinstance(a, otf2.ArrayAttribute):
            tn = '%s[%s]' % (tn, ','.join('%s:%s' % (x.name, x.type) for x in a.array_attributes))
        out.append('%s:%s@%s' % (a.name, tn, a.since))
    return ' '.join(out)
for d in otf2.defs:
    kind = 'both'
    if isinstance(d, otf2.GlobalOnlyDefRecord): kind = 'global'
    if isinstance(d, otf2.LocalOnlyDefRecord): kind = 'local'
    print('def %d %s %s since=%s %s' % (d.id, d.name, kind, d.since, attrs(d)))
for e in otf2.events:
    print('event %d %s %s since=%s %s' % (e.id, e.name, 'singleton' if e.singleton else 'sized', e.since, attrs(e)))
