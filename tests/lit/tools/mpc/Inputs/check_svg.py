"""Checks an SVG picture of mpc: well-formed XML, and prints what it draws
(the title, the labels of lines, how many lines, marks and bars) so that a
test can check it.

usage: check_svg.py FILE.svg
"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
if root.tag != NS + "svg":
    sys.exit("not an SVG picture")
texts = [t.text or "" for t in root.iter(NS + "text")]
print("title:", texts[0] if texts else "")
for line in root.iter(NS + "polyline"):
    points = line.get("points").split()
    print("line %s: %d points" % (line.get("data-label"), len(points)))
print("marks:", sum(1 for c in root.iter(NS + "circle") if c.get("class") == "mark"))
print("bars:", sum(1 for r in root.iter(NS + "rect") if r.get("class") == "bar"))
print("bands:", ", ".join(t for t in texts if t in ("zero in fp16", "fp16 subnormal", "fp16 normal")))
