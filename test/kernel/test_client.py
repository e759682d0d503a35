"""Real Jupyter clients (jupyter_client over libzmq) against the tracebook
kernel: interrupt keeps state, goroutine panics, forged and malformed
messages, stdin, output that must not be lost, updatable displays, restart."""
import json
import os
import signal
import time
import unittest
import uuid

import jupyter_client
import zmq

TIMEOUT = 30


def run(kc, code, allow_stdin=False, stdin_hook=None, timeout=TIMEOUT):
    """Execute code; return (reply content, list of iopub messages for it)."""
    outputs = []
    reply = kc.execute_interactive(code, timeout=timeout, allow_stdin=allow_stdin,
                                   output_hook=outputs.append, stdin_hook=stdin_hook)
    return reply["content"], outputs


def text_of(outputs, msg_type="execute_result"):
    for m in outputs:
        if m["msg_type"] == msg_type:
            return m["content"]["data"]["text/plain"]
    return None


def stdout_of(outputs):
    return "".join(m["content"]["text"] for m in outputs
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


HABITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernel", "session", "testdata", "habits.txt")


def load_habits():
    """The sequences of kernel/session/testdata/habits.txt marked [client]
    (format: kernel/session/habits_test.go)."""
    seqs, cur, part = [], None, None
    for line in open(HABITS, encoding="utf-8").read().split("\n"):
        if line.startswith("=== "):
            cur = {"name": line[4:], "steps": []}
            seqs.append(cur)
        elif line == "--- cell" and cur is not None:
            cur["steps"].append({"cell": [], "want": []})
            part = "cell"
        elif line == "--- want" and cur is not None:
            part = "want"
        elif cur is not None and cur["steps"]:
            cur["steps"][-1][part].append(line)
    out = []
    for s in seqs:
        if not s["name"].endswith(" [client]"):
            continue
        steps = [("\n".join(st["cell"]).rstrip("\n"), "\n".join(st["want"]).rstrip("\n")) for st in s["steps"]]
        out.append((s["name"][:-len(" [client]")], steps))
    return out


def habit_output(outputs):
    """What a cell showed, in the habits table's format."""
    b = []
    for m in outputs:
        c = m["content"]
        if m["msg_type"] == "stream" and c["name"] == "stdout":
            b.append(c["text"])
        elif m["msg_type"] == "stream" and c["name"] == "stderr":
            b.extend("stderr: " + l + "\n" for l in c["text"].rstrip("\n").split("\n"))
        elif m["msg_type"] == "execute_result":
            b.append("= " + c["data"]["text/plain"] + "\n")
        elif m["msg_type"] == "error":
            b.append("! " + c["ename"] + ": " + c["evalue"] + "\n")
    return "".join(b).rstrip("\n")


class HabitTests(unittest.TestCase):
    """The habits table's [client] sequences through a real client, each in
    a fresh kernel: what Go tests of the session check, seen over the wire."""

    def test_habits(self):
        habits = load_habits()
        self.assertGreaterEqual(len(habits), 10)
        for name, steps in habits:
            km, kc = jupyter_client.manager.start_new_kernel(kernel_name="tracebook", startup_timeout=60)
            try:
                for i, (cell, want) in enumerate(steps):
                    _, out = run(kc, cell)
                    with self.subTest(sequence=name, cell=i + 1):
                        self.assertEqual(habit_output(out), want)
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)


class ClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = jupyter_client.manager.start_new_kernel(kernel_name="tracebook", startup_timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=False)

    def test_interrupt_keeps_state(self):
        reply, _ = run(self.kc, "count := 0")
        self.assertEqual(reply["status"], "ok")
        msg_id = self.kc.execute("for { count++ }")
        time.sleep(0.5)
        t0 = time.monotonic()
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        latency = time.monotonic() - t0
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "Interrupted")
        self.assertLess(latency, 5.0)  # generous; the figure is measured by bench_kernel.py
        reply, out = run(self.kc, "count > 1000")
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(text_of(out), "true")

    def test_sigint_interrupts_and_keeps_state(self):
        """interrupt_mode "signal" clients (and Ctrl-C in a terminal) send SIGINT."""
        reply, _ = run(self.kc, "spins := 0")
        self.assertEqual(reply["status"], "ok")
        msg_id = self.kc.execute("for { spins++ }")
        time.sleep(0.5)
        os.kill(self.km.provisioner.process.pid, signal.SIGINT)
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["ename"], "Interrupted")
        reply, out = run(self.kc, "spins > 1000")
        self.assertEqual(text_of(out), "true")

    def _cpu_seconds(self):
        """User + system CPU time of the kernel process."""
        with open("/proc/%d/stat" % self.km.provisioner.process.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def _interrupt_builtin(self, code, after):
        """Runs code, interrupts it after `after` seconds; returns the
        reply, the iopub messages and the CPU seconds the kernel used in the
        second after the interrupt's reply."""
        msg_id = self.kc.execute(code)
        time.sleep(after)
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        c0, t0 = self._cpu_seconds(), time.monotonic()
        time.sleep(1.0)
        cpu = (self._cpu_seconds() - c0) / (time.monotonic() - t0)
        msgs = []
        while True:
            m = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            msgs.append(m)
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        return reply["content"], msgs, cpu

    def test_interrupt_stops_builtins(self):
        """Interrupting a long builtin stops the computation itself, not just
        the cell: the kernel's CPU use returns to idle (a runaway alignment
        keeps a core at 100%), its progress bar says interrupted, and the
        next cell runs at once."""
        reply, _ = run(self.kc, """
r := rand.New(rand.NewSource(1))
rnd := func(n int) string { b := make([]byte, n); for i := range b { b[i] = "acgt"[r.Intn(4)] }; return string(b) }
sa, sb := rnd(300000), rnd(300000)
cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 16, 4000
csvPath := os.TempDir() + "/tracebook-interrupt-test.csv"
arrowio.WriteCSV(csvPath, synth.Generate(cfg).Events())""", timeout=120)
        self.assertEqual(reply["status"], "ok", reply)
        try:
            # The exact DP over 300k x 300k (9e10 cells, several seconds even
            # on both cores; Auto would take the anchor heuristic at once).
            for name, code in [("alignment", "align.Strings(sa, sb, align.WithMethod(align.BitParallel)).Score()"),
                               ("load", "trace.Open(csvPath)")]:
                with self.subTest(name):
                    content, msgs, cpu = self._interrupt_builtin(code, 1.5)
                    self.assertEqual(content["status"], "error")
                    self.assertEqual(content["ename"], "Interrupted", content)
                    print("\n    %s: kernel CPU in the second after the interrupt: %.3f CPU-s/s" % (name, cpu), end=" ")
                    self.assertLess(cpu, 0.3, "the %s kept running after the interrupt: %.2f CPU-s/s" % (name, cpu))
                    bars = [m["content"]["data"].get("text/plain", "") for m in msgs
                            if m["msg_type"] in ("display_data", "update_display_data")]
                    self.assertTrue(any("/s" in b for b in bars), "no progress bar with a rate: %r" % bars)
                    self.assertIn("interrupted", bars[-1])
                    reply, out = run(self.kc, "1 + 1")
                    self.assertEqual(text_of(out), "2")
        finally:
            run(self.kc, "os.Remove(csvPath)")

    def test_goroutine_panic_is_an_error_output(self):
        reply, out = run(self.kc, 'go func() { panic("from a goroutine") }()\ntime.Sleep(300 * time.Millisecond)')
        self.assertEqual(reply["status"], "ok")
        errs = [m for m in out if m["msg_type"] == "error"]
        self.assertEqual(len(errs), 1, out)
        self.assertIn("from a goroutine", errs[0]["content"]["evalue"])
        self.assertIn("cell line 1", "\n".join(errs[0]["content"]["traceback"]))
        reply, out = run(self.kc, "21 * 2")
        self.assertEqual(text_of(out), "42")

    def test_panic_in_cell(self):
        reply, out = run(self.kc, 'a := []int{1}\ni := 3\n_ = a[i]')
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "panic")
        self.assertIn("index out of range", reply["evalue"])
        self.assertIn("cell line 3", reply["evalue"])
        # coloured like ipykernel's tracebacks; ename and evalue stay plain
        self.assertTrue(reply["traceback"][0].startswith("\x1b[0;31mpanic\x1b[0m: "), reply["traceback"])
        self.assertNotIn("\x1b", reply["ename"] + reply["evalue"])

    def _raw_shell(self):
        ctx = zmq.Context.instance()
        s = ctx.socket(zmq.DEALER)
        s.linger = 0
        s.connect("tcp://%s:%d" % (self.km.ip, self.km.shell_port))
        return s

    def test_forged_and_malformed_messages_are_dropped(self):
        s = self._raw_shell()
        header = json.dumps({"msg_id": str(uuid.uuid4()), "session": "forger", "username": "x",
                             "date": "2026-01-01T00:00:00Z", "msg_type": "execute_request", "version": "5.3"}).encode()
        content = json.dumps({"code": "forged := 1", "silent": False}).encode()
        frames = [b"<IDS|MSG>", b"0" * 64, header, b"{}", b"{}", content]
        s.send_multipart(frames)                                 # wrong signature
        s.send_multipart([b"<IDS|MSG>", b"", header, b"{}", b"{}", content])  # unsigned
        s.send_multipart([b"garbage"])                           # no delimiter
        s.send_multipart([b"<IDS|MSG>", b"x"])                   # too short
        self.assertEqual(s.poll(1000), 0, "kernel answered a forged message")
        s.close()
        reply, out = run(self.kc, "forged")
        self.assertEqual(reply["status"], "error")
        self.assertIn("undefined: forged", reply["evalue"])
        reply, out = run(self.kc, "1 + 1")
        self.assertEqual(text_of(out), "2")

    def test_replayed_message_is_dropped(self):
        run(self.kc, "replays := 0")
        s = self._raw_shell()
        sess = self.kc.session
        msg = sess.msg("execute_request", {"code": "replays++", "silent": False, "store_history": False,
                                           "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
        frames = sess.serialize(msg)            # validly signed with the connection key
        s.send_multipart(frames)
        self.assertEqual(s.poll(10000), zmq.POLLIN, "kernel did not answer the signed message")
        reply = sess.deserialize(sess.feed_identities(s.recv_multipart())[1])
        self.assertEqual(reply["content"]["status"], "ok")
        s.send_multipart(frames)                # the same bytes again: a replay
        self.assertEqual(s.poll(1000), 0, "kernel answered a replayed message")
        s.close()
        reply, out = run(self.kc, "replays")
        self.assertEqual(text_of(out), "1")

    def test_stdin(self):
        prompts = []

        def answer(msg):
            prompts.append(msg)
            self.kc.input("Ada")

        code = 'var name string\nfmt.Scanln(&name)\nfmt.Println("hello", name)'
        reply, out = run(self.kc, code, allow_stdin=True, stdin_hook=answer)
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(len(prompts), 1)
        self.assertEqual(prompts[0]["msg_type"], "input_request")
        self.assertIn("hello Ada", stdout_of(out))
        # Without allow_stdin the read fails at once instead of hanging.
        reply, out = run(self.kc, 'var n2 int\n_, err := fmt.Scanln(&n2)\nerr != nil')
        self.assertEqual(text_of(out), "true")

    def test_no_output_lost(self):
        n = 200000
        reply, out = run(self.kc, 'for i := 0; i < %d; i++ { fmt.Println(i) }' % n, timeout=120)
        self.assertEqual(reply["status"], "ok")
        lines = stdout_of(out).splitlines()
        self.assertEqual(len(lines), n)
        self.assertEqual(lines[-1], str(n - 1))
        self.assertEqual(lines, [str(i) for i in range(n)])
        # batched: far fewer messages than lines
        self.assertLess(sum(1 for m in out if m["msg_type"] == "stream"), n // 100)

    def test_stream_while_running(self):
        # output arrives before the cell ends
        msg_id = self.kc.execute('fmt.Println("early")\ntime.Sleep(1500 * time.Millisecond)\nfmt.Println("late")')
        t0 = time.monotonic()
        seen = None
        while time.monotonic() - t0 < TIMEOUT:
            m = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream" and "early" in m["content"]["text"]:
                seen = time.monotonic() - t0
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        self.kc.get_shell_msg(timeout=TIMEOUT)
        self.assertIsNotNone(seen)
        self.assertLess(seen, 1.2)

    def test_updatable_display(self):
        reply, out = run(self.kc, 'h := display.Updatable(display.Text("one"))\nh.Update(display.Text("two"))')
        kinds = [m["msg_type"] for m in out if m["msg_type"] in ("display_data", "update_display_data")]
        self.assertEqual(kinds, ["display_data", "update_display_data"])
        ids = {m["content"]["transient"]["display_id"] for m in out if m["msg_type"] in kinds}
        self.assertEqual(len(ids), 1)
        upd = [m for m in out if m["msg_type"] == "update_display_data"][0]
        self.assertEqual(upd["content"]["data"]["text/plain"], "two")

    def test_function_redefinition(self):
        run(self.kc, "func inc(n int) int { return n + 1 }\nfunc twice(n int) int { return inc(inc(n)) }")
        _, out = run(self.kc, "twice(0)")
        self.assertEqual(text_of(out), "2")
        run(self.kc, "func inc(n int) int { return n + 10 }")
        _, out = run(self.kc, "twice(0)")
        self.assertEqual(text_of(out), "20")

    def test_comms(self):
        self.kc.comm_info()
        r = self.kc.get_shell_msg(timeout=TIMEOUT)
        self.assertEqual(r["msg_type"], "comm_info_reply")
        self.assertEqual(r["content"]["comms"], {})
        # opening a comm with an unknown target is answered by comm_close
        comm_id = str(uuid.uuid4())
        msg = self.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "nope", "data": {}})
        self.kc.shell_channel.send(msg)
        t0 = time.monotonic()
        closed = False
        while time.monotonic() - t0 < 10 and not closed:
            m = self.kc.get_iopub_msg(timeout=10)
            closed = m["msg_type"] == "comm_close" and m["content"]["comm_id"] == comm_id
        self.assertTrue(closed)

    def test_zz_restart(self):
        run(self.kc, "beforeRestart := 1")
        self.km.restart_kernel(now=False)
        self.kc.wait_for_ready(timeout=60)
        reply, out = run(self.kc, "beforeRestart")
        self.assertEqual(reply["status"], "error")
        reply, out = run(self.kc, "2 + 3")
        self.assertEqual(text_of(out), "5")



class NotebookDetails(unittest.TestCase):
    """Issue 32's notebook details, over the wire: a failed export fails the cell."""

    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = jupyter_client.manager.start_new_kernel(kernel_name="tracebook", startup_timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=True)

    def test_failed_write_fails_the_cell(self):
        # before: the write returned an error the kernel printed as "error: ..." in a cell whose
        # reply was ok, and a headless run went on without its export
        for call in ['arrowio.WriteParquet(path, tb)', 'arrowio.Write(path, tb)',
                     'arrowio.WriteCSV(path, tb)\nfmt.Println("after")']:
            with self.subTest(call=call):
                reply, out = run(self.kc, 'tb := arrowio.MustTable(arrowio.Int64("a", []int64{1}))\n'
                                 'path := "/nonexistent-dir-of-the-test/x.parquet"\n' + call)
                self.assertEqual(reply["status"], "error", out)
                self.assertIn("/nonexistent-dir-of-the-test/x.parquet", reply["evalue"])
                self.assertIn("no such file or directory", reply["evalue"])
                self.assertNotIn("after", stdout_of(out))
        reply, out = run(self.kc, 'arrowio.Write(os.TempDir()+"/tracebook-ux-ok.csv", arrowio.MustTable(arrowio.Int64("a", []int64{1})))')
        self.assertEqual(reply["status"], "ok", out)

    def reply_to(self, msg_id):
        while True:
            m = self.kc.get_shell_msg(timeout=TIMEOUT)
            if m["parent_header"].get("msg_id") == msg_id:
                return m["content"]

    def test_inspect_inside_call_arguments(self):
        # Shift-Tab at align.Runs(a, | (before: found nothing)
        for code in ["align.Runs(a, ", "align.Runs(", 'x := align.Runs(a, "s']:
            with self.subTest(code=code):
                c = self.reply_to(self.kc.inspect(code, cursor_pos=len(code)))
                self.assertTrue(c["found"], c)
                self.assertIn("func Runs(", c["data"]["text/plain"])
        # and "?" there, in the pager
        reply, _ = run(self.kc, "align.Runs(a, ?")
        self.assertEqual(reply["status"], "ok", reply)
        self.assertIn("func Runs(", reply["payload"][0]["data"]["text/plain"])

    def test_path_and_magic_completion(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "shared"))
            open(os.path.join(d, "shell.csv"), "w").close()
            os.mkdir(os.path.join(d, "other"))
            code = 'tr := trace.Open("' + d + '/sh'
            c = self.reply_to(self.kc.complete(code, cursor_pos=len(code)))
            self.assertEqual(c["matches"], [d + "/shared/", d + "/shell.csv"])
            self.assertEqual(code[c["cursor_start"]:c["cursor_end"]], d + "/sh")
        for code, want in [("%he", ["%help"]), ("x := 1\n%w", ["%who"])]:
            c = self.reply_to(self.kc.complete(code, cursor_pos=len(code)))
            self.assertEqual(c["matches"], want)
            self.assertEqual(c["cursor_end"] - c["cursor_start"], len(code.split("\n")[-1]))



PARENT_SCRIPT = """
import sys, time, jupyter_client
km = jupyter_client.KernelManager(kernel_name="tracebook")
km.start_kernel()
print(km.provisioner.pid if getattr(km, "provisioner", None) else km.kernel.pid, flush=True)
time.sleep(3600)
"""


def process_alive(pid):
    """pid runs (a zombie, exited but not yet reaped by its new parent, does not count)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class ParentWatch(unittest.TestCase):
    """A kernel whose client died exits (issue 32; ipykernel's ParentPoller): a process starts a
    kernel through jupyter_client's KernelManager (which passes JPY_PARENT_PID), is killed, and
    the kernel must go away. Before, it ran on."""

    def test_kernel_exits_when_its_parent_is_killed(self):
        import subprocess
        import sys
        parent = subprocess.Popen([sys.executable, "-c", PARENT_SCRIPT], stdout=subprocess.PIPE, text=True)
        kernel_pid = None
        try:
            kernel_pid = int(parent.stdout.readline())
            self.assertTrue(process_alive(kernel_pid))
            time.sleep(1.5)  # the kernel is up and watching (not a measured figure)
            self.assertTrue(process_alive(kernel_pid), "the kernel exited with its parent alive")
            parent.kill()
            parent.wait()
            deadline = time.monotonic() + 30  # only a guard against hanging: it polls every second
            while process_alive(kernel_pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertFalse(process_alive(kernel_pid), "the kernel runs on after its parent was killed")
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait()
            parent.stdout.close()
            if kernel_pid and process_alive(kernel_pid):
                os.kill(kernel_pid, signal.SIGKILL)


if __name__ == "__main__":
    unittest.main(verbosity=2)
