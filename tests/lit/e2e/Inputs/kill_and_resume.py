"""Kills `mpc train --save-every` with SIGKILL while it writes checkpoints,
then checks what a user resumes from: the checkpoints left under their
final names are whole (no more than --keep-checkpoints of them, plus the
one a kill may catch before the oldest is deleted), mpc resumes from the
newest, and the resumed run ends bitwise where an uninterrupted one does.

usage: kill_and_resume.py MPC GRAPH DATA FOLDER
"""
import filecmp
import glob
import os
import re
import subprocess
import sys
import time

mpc, graph, data, folder = sys.argv[1:5]
EVERY, KEEP, KILL_AFTER = 25, 2, 200
common = [mpc, "train", graph, "--data", data, "--seed", "2", "--quiet"]


def checkpoints():
    found = {}
    for path in glob.glob(os.path.join(folder, "run.step*.safetensors")):
        match = re.search(r"\.step(\d+)\.safetensors$", path)
        if match:
            found[int(match.group(1))] = path
    return found


run = subprocess.Popen(common + ["--steps", "100000000", "--save-every", str(EVERY),
                                 "--keep-checkpoints", str(KEEP),
                                 "--save", os.path.join(folder, "run.safetensors")],
                       stdout=subprocess.DEVNULL)
deadline = time.time() + 120
while time.time() < deadline and run.poll() is None and max(checkpoints(), default=0) < KILL_AFTER:
    time.sleep(0.005)
if run.poll() is not None:
    sys.exit("mpc train ended (%s) before it was killed" % run.returncode)
run.kill()
run.wait()
left = checkpoints()
if not left:
    sys.exit("no checkpoint left after the kill")
if len(left) > KEEP + 1:
    sys.exit("%d checkpoints left, more than --keep-checkpoints %d + 1: %s"
             % (len(left), KEEP, sorted(left)))
newest = max(left)
resumed = os.path.join(folder, "resumed.safetensors")
straight = os.path.join(folder, "straight.safetensors")
subprocess.run(common + ["--steps", str(EVERY), "--init", left[newest], "--save", resumed],
               check=True, stdout=subprocess.DEVNULL)
subprocess.run(common + ["--steps", str(newest + EVERY), "--save", straight], check=True,
               stdout=subprocess.DEVNULL)
same = filecmp.cmp(resumed, straight, shallow=False)
print("newest checkpoint left: step %d; resumed from it for %d steps: %s"
      % (newest, EVERY, "identical" if same else "DIFFERENT"))
