# Drives a command in a pseudo-terminal: argv[1] is a JSON list of steps ({"expect": text} waits for text after the
# previous match, {"send": text} types it); prints {"output", "code", "failed"} as JSON when the command exits.
import json, os, pty, select, sys, time

steps = json.loads(sys.argv[1])
command = sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvpe(command[0], command, os.environ)

output = b''
seen = 0
failed = None

def read_some(timeout):
    global output
    ready, _, _ = select.select([fd], [], [], timeout)
    if ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        output += chunk
    return True

for step in steps:
    if 'send' in step:
        os.write(fd, step['send'].encode())
        continue
    wanted = step['expect'].encode()
    deadline = time.time() + step.get('timeout', 20)
    while output.find(wanted, seen) == -1 and time.time() < deadline:
        if not read_some(0.1):
            break
    found = output.find(wanted, seen)
    if found == -1:
        failed = step['expect']
        break
    seen = found + len(wanted)

deadline = time.time() + 20
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    read_some(0.1)
else:
    os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
while read_some(0.05):
    pass
print(json.dumps({'output': output.decode('utf-8', 'replace'), 'code': os.waitstatus_to_exitcode(status), 'failed': failed}))
