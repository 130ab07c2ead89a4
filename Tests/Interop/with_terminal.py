"""Runs a command as a tool runs a credential helper from a person's
terminal: in a new session whose controlling terminal (/dev/tty) is a fresh
pseudo-terminal, while its stdin, stdout and stderr are the files given (as
git's pipes would be). Whenever the terminal's output ends with PROMPT, it
types ANSWER there. What appeared on the terminal is written to TRANSCRIPT.

Usage: with_terminal.py STDIN STDOUT STDERR TRANSCRIPT PROMPT ANSWER -- COMMAND...
Exits with the command's status.
"""
import os, pty, select, sys, time

stdin_path, stdout_path, stderr_path, transcript_path, prompt, answer = sys.argv[1:7]
command = sys.argv[sys.argv.index("--") + 1:]
master, slave = pty.openpty()
slave_name = os.ttyname(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    os.close(master)
    os.close(slave)
    terminal = os.open(slave_name, os.O_RDWR)  # the first terminal a session leader opens becomes its controlling one
    os.close(terminal)
    os.dup2(os.open(stdin_path, os.O_RDONLY), 0)
    os.dup2(os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
    os.dup2(os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    os.execvp(command[0], command)
os.close(slave)
seen = b""
answered = 0
status = None
deadline = time.monotonic() + 60
while status is None and time.monotonic() < deadline:
    ready, _, _ = select.select([master], [], [], 0.2)
    if ready:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            data = b""
        seen += data
        if seen.rstrip().endswith(prompt.encode()) and seen.count(prompt.encode()) > answered:
            answered += 1
            os.write(master, (answer + "\n").encode())
    reaped, wait_status = os.waitpid(pid, os.WNOHANG)
    if reaped:
        status = wait_status
if status is None:
    os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
with open(transcript_path, "wb") as transcript:
    transcript.write(seen)
sys.exit(os.waitstatus_to_exitcode(status))
