"""tracebook repl driven through a pseudo-terminal, as a user types: Tab
completion, history across sessions, cells of several lines, name? help,
Ctrl-C at the prompt and during a cell, Ctrl-D, errors; and the REPL reading
piped input. Standard library only (pty, os, select; termios/fcntl/struct to
give the terminal a size)."""
import fcntl
import glob
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BINARY = os.environ.get("TRACEBOOK_BINARY", os.path.join(ROOT, "build", "tracebook"))

TIMEOUT = 20  # seconds to wait for an expected output: a hang fails the test
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

CTRL_C, CTRL_D, TAB, UP = "\x03", "\x04", "\t", "\x1b[A"
MARK = "\u2424"  # stands for a line break in the history
COOKED = termios.ECHO | termios.ICANON | termios.ISIG  # the modes of a terminal as a shell leaves it


class Repl:
    """tracebook repl on a pseudo-terminal of 40x120, with its own home."""

    def __init__(self, home, cwd, term="xterm", args=()):
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, "config"), TERM=term)
        # the test keeps the terminal's slave end open, so that the modes
        # the REPL leaves it in can be read after it exited
        self.fd, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.pid = os.fork()
        if self.pid == 0:  # the child: the terminal is its stdin
            try:
                os.close(self.fd)
                os.login_tty(self.slave)
                os.chdir(cwd)
                os.execve(BINARY, [BINARY, "repl"] + list(args), env)
            finally:
                os._exit(127)
        self.raw = ""
        self.pos = 0  # what expect consumed, in the text without escapes
        self.status = None

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def text(self):
        return ANSI.sub("", self.raw).replace("\r", "")

    def lflag(self):
        """The local modes (termios c_lflag) of the terminal now."""
        return termios.tcgetattr(self.slave)[3]

    def exited(self):
        """Whether the REPL exited (its status then in self.status)."""
        if self.status is None:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
        return self.status is not None

    def expect(self, pattern, timeout=TIMEOUT):
        """Read until the text after the last match contains pattern (a
        regular expression); return what came before it and the match."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            t = self.text()
            m = rx.search(t, self.pos)
            if m:
                before = t[self.pos:m.start()]
                self.pos = m.end()
                return before, m
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("no %r within %ss; the REPL wrote:\n%s" % (pattern, timeout, t[self.pos:][-2000:]))
            r, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if r:
                self.raw += os.read(self.fd, 65536).decode("utf-8", "replace")
            elif self.exited():
                raise AssertionError("the REPL ended (status %s) before %r; it wrote:\n%s" % (
                    self.status, pattern, t[self.pos:][-2000:]))

    def prompt(self, n):
        """Wait for the prompt In [n]: and return what was written before it."""
        return self.expect(r"In \[%d\]: " % n)[0]

    def run(self, cell, n):
        """Type a cell (lines ended by Enter) at prompt n-1... and return the
        output before prompt n."""
        self.send(cell.replace("\n", "\r") + "\r")
        return self.prompt(n)

    def wait(self, timeout=TIMEOUT):
        """The exit status, waiting for it at most timeout seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:  # drain the terminal, so the REPL never blocks writing
                if select.select([self.fd], [], [], 0.05)[0]:
                    self.raw += os.read(self.fd, 65536).decode("utf-8", "replace")
            except OSError:
                pass
            if self.exited():
                return self.status
        raise AssertionError("the REPL did not exit within %s s" % timeout)

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)
        os.close(self.slave)


def exported_funcs(pkg_dir):
    """Exported package-level functions declared in a Go package's sources
    (not its tests): an independent list of what completion must offer."""
    names = set()
    for f in glob.glob(os.path.join(pkg_dir, "*.go")):
        if f.endswith("_test.go"):
            continue
        with open(f, encoding="utf-8") as src:
            for line in src:
                m = re.match(r"func ([A-Z]\w*)[\[(]", line)
                if m:
                    names.add(m.group(1))
    return names


def cpu_seconds(pid):
    """User + system CPU time of a process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TestRepl(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(BINARY):
            self.skipTest("no binary at %s (make build, or set TRACEBOOK_BINARY)" % BINARY)
        self.home = tempfile.mkdtemp(prefix="tracebook-repl-")
        self.cwd = tempfile.mkdtemp(prefix="tracebook-repl-cwd-")
        self.repls = []

    def tearDown(self):
        for r in self.repls:
            r.close()
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.cwd, ignore_errors=True)

    def start(self, *args):
        r = Repl(self.home, self.cwd, args=args)
        self.repls.append(r)
        banner = r.prompt(1)
        self.assertIn("%help", banner)
        return r

    def history_file(self):
        return os.path.join(self.home, "config", "tracebook", "history")

    def test_tab_completes_a_unique_name(self):
        r = self.start()
        r.send("strings.ToU" + TAB)
        r.expect(r"strings\.ToUpper")
        out = r.run('("tab")', 2)
        self.assertIn('Out[1]: "%s"' % "tab".upper(), out)

    def test_tab_tab_lists_a_builtin_package(self):
        want = exported_funcs(os.path.join(ROOT, "builtins", "align"))
        self.assertIn("Runs", want)  # the oracle reads the package
        r = self.start()
        r.send("align." + TAB)
        r.expect(r"In \[1\]: align\.")  # the first Tab draws the line again
        r.send(TAB)
        listing, _ = r.expect(r"In \[1\]: align\.")  # the second lists, then draws it again
        words = set(listing.split())
        self.assertFalse(want - words, "completion of align. misses %s" % sorted(want - words))
        r.send(CTRL_C)
        r.prompt(1)

    def test_multiline_cell(self):
        r = self.start()
        r.send("func f() int {\r")
        r.expect(r"\.\.\.: ")  # continuation prompt
        r.send("x := 6\r")
        r.expect(r"\.\.\.: ")
        r.send("return x * 7\r")
        r.expect(r"\.\.\.: ")
        r.send("}\r")
        out = r.prompt(2)
        self.assertNotIn("Error", out)
        out = r.run("f()", 3)
        self.assertIn("Out[2]: %d" % (6 * 7), out)

    def test_history_across_sessions(self):
        r = self.start()
        r.run("func g() int {\nreturn 7\n}", 2)
        r.run("g() + 1", 3)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)
        with open(self.history_file(), encoding="utf-8") as f:
            entries = f.read().splitlines()
        self.assertEqual(len(entries), 2, entries)  # a cell of three lines is one entry
        self.assertIn("func g() int {", entries[0])
        self.assertIn("return 7", entries[0])
        self.assertEqual(entries[1], "g() + 1")

        r = self.start()
        r.send(UP + UP + "\r")  # the cell defining g, recalled whole
        out = r.prompt(2)
        self.assertNotIn("Error", out)
        out = r.run("g() * 3", 3)
        self.assertIn("Out[2]: %d" % (7 * 3), out)

    def test_history_keeps_the_last_1000(self):
        os.makedirs(os.path.dirname(self.history_file()))
        with open(self.history_file(), "w", encoding="utf-8") as f:
            f.write("".join("%d\n" % i for i in range(1000)))
        r = self.start()
        r.run("5 + 5", 2)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)
        with open(self.history_file(), encoding="utf-8") as f:
            entries = f.read().splitlines()
        self.assertEqual(entries, ["%d" % i for i in range(1, 1000)] + ["5 + 5"])

    def test_help(self):
        r = self.start()
        out = r.run("strings.Fields?", 1)  # help is not counted: the prompt stays 1
        self.assertIn("func Fields(s string) []string", out)
        self.assertNotIn("Out[", out)
        out = r.run("nosuchname?", 1)
        self.assertIn("no documentation found for nosuchname", out)

    def test_ctrl_c_at_the_prompt_discards_the_input(self):
        r = self.start()
        r.send("undefinedName")
        r.expect("undefinedName")
        r.send(CTRL_C)
        r.prompt(1)
        r.send("func h() {\r")  # a cell of several lines is discarded too
        r.expect(r"\.\.\.: ")
        r.send(CTRL_C)
        out = r.run("5 * 5", 2)  # still In [1]: nothing ran
        self.assertIn("Out[1]: 25", out)
        self.assertNotIn("undefined", out)
        self.assertNotIn("Error", out)

    def test_ctrl_c_right_after_a_prompt_is_drawn(self):
        """Ctrl-C typed as soon as a prompt shows, before the line editor
        reads keys, is still a key (not a lost SIGINT)."""
        r = self.start()
        for _ in range(40):
            r.send("func h() {\r")
            r.expect(r"\.\.\.: ")
            r.send(CTRL_C)
            r.prompt(1)
        out = r.run("3 * 3", 2)
        self.assertIn("Out[1]: 9", out)

    def test_ctrl_c_interrupts_a_running_cell(self):
        r = self.start()
        r.run("n := 0", 2)
        r.send("for { n++ }\r")
        time.sleep(1)
        r.send(CTRL_C)
        out = r.prompt(3)
        self.assertIn("interrupted", out)
        out = r.run("n > 0", 4)  # the session and its state live on
        self.assertIn("Out[3]: true", out)

    def test_ctrl_c_interrupts_a_builtin(self):
        """The interrupt stops the builtin's computation, not just the cell:
        the process goes back to idle (an exact alignment of 300k x 300k
        would keep a core busy for many seconds)."""
        r = self.start()
        r.run("r := rand.New(rand.NewSource(1))", 2)
        r.run('rnd := func(n int) string { b := make([]byte, n); for i := range b { b[i] = "acgt"[r.Intn(4)] }; return string(b) }', 3)
        r.run("sa, sb := rnd(300000), rnd(300000)", 4)
        r.send("align.Strings(sa, sb, align.WithMethod(align.BitParallel)).Score()\r")
        time.sleep(1.5)
        r.send(CTRL_C)
        out = r.prompt(5)
        self.assertIn("Interrupted", out)
        cpu = cpu_seconds(r.pid)
        time.sleep(1)
        used = cpu_seconds(r.pid) - cpu
        self.assertLess(used, 0.3, "the alignment kept running after the interrupt: %.2f CPU-s/s" % used)
        out = r.run("len(sa) + len(sb)", 6)
        self.assertIn("Out[5]: %d" % 600000, out)

    def test_error_does_not_end_the_repl(self):
        r = self.start()
        out = r.run("undefinedThing", 2)
        self.assertIn("undefined: undefinedThing", out)
        out = r.run("1 + 2", 3)
        self.assertIn("Out[2]: 3", out)
        out = r.run('panic("boom")', 4)
        self.assertIn("boom", out)
        out = r.run("2 + 2", 5)
        self.assertIn("Out[4]: 4", out)

    def test_ctrl_d_exits_with_status_0(self):
        r = self.start()
        r.send("func k() {\r")
        r.expect(r"\.\.\.: ")
        r.send("\x15" + CTRL_D)  # Ctrl-U erases the indent; Ctrl-D on the empty line ends the cell, not the REPL
        r.prompt(1)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)

    def test_os_exit_ends_the_repl_with_its_status(self):
        r = self.start()
        self.assertFalse(r.lflag() & termios.ECHO)  # the prompt's mode: raw
        r.send("os.Exit(3)\r")
        self.assertEqual(r.wait(), 3)
        self.assertEqual(r.lflag() & COOKED, COOKED)  # the terminal is given back as it was
        with open(self.history_file(), encoding="utf-8") as f:
            self.assertEqual(f.read().splitlines(), ["os.Exit(3)"])  # the cell is kept

    def test_os_exit_is_not_a_panic(self):
        """os.Exit exits, even where a deferred recover would stop a panic."""
        r = self.start()
        r.run("func f() {\ndefer func() { recover() }()\nos.Exit(4)\n}", 2)
        r.send("f()\r")
        self.assertEqual(r.wait(), 4)
        self.assertEqual(r.lflag() & COOKED, COOKED)

    def test_sigterm_and_sighup_give_the_terminal_back(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            r = self.start()
            self.assertFalse(r.lflag() & (termios.ECHO | termios.ICANON | termios.ISIG))  # raw, as liner left it
            os.kill(r.pid, sig)
            self.assertEqual(r.wait(), 128 + sig)
            self.assertEqual(r.lflag() & COOKED, COOKED, "after %s" % signal.Signals(sig).name)

    def test_ctrl_c_while_a_cell_reads_the_terminal(self):
        """A cell waiting for a line is interrupted: its read gives up, the
        next prompt has the terminal (keys echoed, Enter ends the line,
        Ctrl-C and Ctrl-D are keys)."""
        r = self.start()
        r.run("var line string", 2)
        r.send("line, _ = bufio.NewReader(os.Stdin).ReadString('\\n')\r")
        time.sleep(0.5)
        r.send(CTRL_C)
        out = r.prompt(3)
        self.assertIn("nterrupted", out)
        out = r.run("2 + 2", 4)
        self.assertIn("Out[3]: %d" % (2 + 2), out)
        out = r.run("len(line)", 5)  # the line typed at the prompt did not go to the cell
        self.assertIn("Out[4]: 0", out)
        r.send("typed" + CTRL_C)
        r.prompt(5)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)

    def test_newline_mark_in_a_string(self):
        """The mark standing for a line break in the history is a line
        break only outside strings: a typed string keeps it, and a cell
        holding it is recalled as it was."""
        text = "x%sy" % MARK
        r = self.start()
        r.run('s := "%s"' % text, 2)
        out = r.run("len(s)", 3)
        self.assertIn("Out[2]: %d" % len(text.encode()), out)
        r.run('func q() string {\nreturn "%s"\n}' % text, 4)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)

        r = self.start()
        r.send(UP + "\r")  # the cell defining q, recalled on one line
        out = r.prompt(2)
        self.assertNotIn("rror", out)
        out = r.run("len(q())", 3)
        self.assertIn("Out[2]: %d" % len(text.encode()), out)

    def test_a_cell_reads_a_line_from_the_terminal(self):
        r = self.start()
        r.send("line, err := bufio.NewReader(os.Stdin).ReadString('\\n')\r")
        time.sleep(0.5)
        r.send("typed at the terminal\r")
        r.prompt(2)
        self.assertIn("typed at the terminal", r.text())  # the terminal echoed it
        out = r.run("strings.ToUpper(strings.TrimSuffix(line, \"\\n\"))", 3)
        self.assertIn('Out[2]: "%s"' % "typed at the terminal".upper(), out)

    def test_figure_written_to_the_current_directory(self):
        with open(os.path.join(self.cwd, "tracebook-1.png"), "wb") as f:
            f.write(b"an earlier session's")
        r = self.start()
        png = b"\x89PNG\r\n\x1a\n-repl-"
        out = r.run('display.PNG([]byte("\\x89PNG\\r\\n\\x1a\\n-repl-"))', 2)
        self.assertIn("tracebook-2.png", out)  # numbered after the file there
        with open(os.path.join(self.cwd, "tracebook-2.png"), "rb") as f:
            self.assertEqual(f.read(), png)
        with open(os.path.join(self.cwd, "tracebook-1.png"), "rb") as f:
            self.assertEqual(f.read(), b"an earlier session's")


    def test_a_terminal_without_line_editing(self):
        """TERM=dumb: lines are read as the terminal gives them, prompts
        on stderr, values without Out[N]."""
        r = Repl(self.home, self.cwd, term="dumb")
        self.repls.append(r)
        r.prompt(1)
        r.send("func f() int {\r")
        r.expect(r"\.\.\.: ")
        r.send("return 6 * 7\r}\r")
        r.prompt(2)
        out = r.run("f()", 3)
        self.assertIn("%d" % (6 * 7), out)
        self.assertNotIn("Out[", out)
        r.send(CTRL_D)
        self.assertEqual(r.wait(), 0)


class TestReplPiped(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(BINARY):
            self.skipTest("no binary at %s" % BINARY)
        self.home = tempfile.mkdtemp(prefix="tracebook-repl-")

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def pipe(self, text, *args):
        env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=self.home)
        return subprocess.run([BINARY, "repl"] + list(args), input=text, capture_output=True, text=True,
                              timeout=60, env=env, cwd=self.home)

    def test_cells_of_several_lines_without_prompts(self):
        p = self.pipe("func f(a int) int {\n\treturn a * a\n}\nf(9)\nstrings.Fields?\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("In [", p.stdout)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], str(9 * 9))
        self.assertIn("func Fields(s string) []string", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.home, "tracebook", "history")))

    def test_an_error_goes_on_and_sets_the_status(self):
        p = self.pipe("undefinedThing\n\"after\"\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("undefined: undefinedThing", p.stderr)
        self.assertEqual(p.stdout.strip(), '"after"')

    def test_sigint_stops_the_cell_and_the_repl(self):
        env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=self.home)
        p = subprocess.Popen([BINARY, "repl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, cwd=self.home)
        try:
            p.stdin.write("for {}\n\"not reached\"\n")
            p.stdin.flush()
            time.sleep(1)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=20)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertNotIn("not reached", out)

    def test_os_exit(self):
        p = self.pipe("1\nos.Exit(4)\n2\n")
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertEqual(p.stdout.split(), ["1"])

    def test_os_exit_is_not_a_panic(self):
        p = self.pipe('func f() {\n\tdefer func() { recover() }()\n\tos.Exit(5)\n}\nf()\n"not reached"\n')
        self.assertEqual(p.returncode, 5, p.stderr)
        self.assertNotIn("not reached", p.stdout)

    def test_newline_mark_is_a_character(self):
        text = "a%sb" % MARK
        p = self.pipe('s := "%s"\nlen(s)\n' % text)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [str(len(text.encode()))])

    def test_a_cell_reading_stdin_sees_its_end(self):
        """The input is the REPL's: a cell reading os.Stdin gets end of
        file and the lines after it stay cells, however they arrive."""
        env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=self.home)
        p = subprocess.Popen([BINARY, "repl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, cwd=self.home)
        try:
            p.stdin.write("b, err := io.ReadAll(os.Stdin)\n")
            p.stdin.flush()
            time.sleep(0.5)  # the cell runs while the rest is still to come
            p.stdin.write('len(b)\nerr == nil\nline, err := bufio.NewReader(os.Stdin).ReadString(10)\nline\nerr == io.EOF\n"after"\n')
            out, err = p.communicate(timeout=30)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out.split(), ["0", "true", '""', "true", '"after"'])

    def test_figures_prefix_with_a_directory(self):
        os.mkdir(os.path.join(self.home, "sub"))
        with open(os.path.join(self.home, "sub", "f-1.png"), "wb") as f:
            f.write(b"an earlier session's")
        p = self.pipe('display.PNG([]byte("\\x89PNG\\r\\n\\x1a\\n-sub-"))\n', "--figures", "./sub/f")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("sub/f-2.png", p.stderr)
        with open(os.path.join(self.home, "sub", "f-2.png"), "rb") as f:
            self.assertEqual(f.read(), b"\x89PNG\r\n\x1a\n-sub-")
        with open(os.path.join(self.home, "sub", "f-1.png"), "rb") as f:
            self.assertEqual(f.read(), b"an earlier session's")

    def test_a_figure_not_written_fails(self):
        missing = os.path.join(self.home, "no-such-dir", "f")
        p = self.pipe('display.PNG([]byte("\\x89PNG\\r\\n\\x1a\\n"))\n"after"\n', "--figures", missing)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("figure 1", p.stderr)
        self.assertIn("no-such-dir", p.stderr)
        self.assertEqual(p.stdout.strip(), '"after"')  # the session went on

    def test_an_unfinished_cell_at_the_end(self):
        p = self.pipe("1 + 1\nfunc f() {\n")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.strip(), "2")
        self.assertIn("line", p.stderr)


def measure(n=20):
    """Prints the REPL's start-up time (spawn to the first prompt) and the
    time from Ctrl-C in a running loop to the next prompt, medians of n."""
    import statistics
    home, cwd = tempfile.mkdtemp(), tempfile.mkdtemp()
    try:
        starts, stops = [], []
        for _ in range(n):
            t0 = time.monotonic()
            r = Repl(home, cwd)
            r.prompt(1)
            starts.append(time.monotonic() - t0)
            r.send("for {}\r")
            time.sleep(0.2)
            t0 = time.monotonic()
            r.send(CTRL_C)
            r.prompt(2)
            stops.append(time.monotonic() - t0)
            r.send(CTRL_D)
            r.wait()
            r.close()
        for name, xs in [("start-up to the first prompt", starts), ("Ctrl-C in a running cell to the next prompt", stops)]:
            print("%s: median %.1f ms, min %.1f, max %.1f (n=%d)" % (
                name, 1000 * statistics.median(xs), 1000 * min(xs), 1000 * max(xs), n))
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["measure"]:  # python3 test_repl.py measure
        measure()
    else:
        unittest.main()
