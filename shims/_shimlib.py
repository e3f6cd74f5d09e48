"""Shared helpers for the `claude` and `codex` test stand-ins (see README.md).

Standard library only, and only cheap modules at import time: the shims are
started hundreds of times by the test suites.
"""
import json
import os
import signal
import sys
import time

# --------------------------------------------------------------------------
# ids and clocks

def now_ms():
    return int(time.time() * 1000)


def iso_ms(ms=None):
    """2026-11-29T11:46:37.447Z (UTC, millisecond precision, as both CLIs)."""
    if ms is None:
        ms = now_ms()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def _fmt_uuid(h):
    return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def uuid4():
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return _fmt_uuid(b.hex())


def uuid7(ms=None):
    """Time-ordered UUID (v7), the shape of Codex thread / turn ids."""
    if ms is None:
        ms = now_ms()
    b = bytearray(ms.to_bytes(6, "big") + os.urandom(10))
    b[6] = (b[6] & 0x0F) | 0x70
    b[8] = (b[8] & 0x3F) | 0x80
    return _fmt_uuid(b.hex())


def hexid(n):
    return os.urandom((n + 1) // 2).hex()[:n]


_HEX = set("0123456789abcdefABCDEF")


def is_uuid(s):
    """8-4-4-4-12 hex digits (what both CLIs accept as a session / thread id)."""
    if not isinstance(s, str) or len(s) != 36:
        return False
    for i, c in enumerate(s):
        if i in (8, 13, 18, 23):
            if c != "-":
                return False
        elif c not in _HEX:
            return False
    return True


# --------------------------------------------------------------------------
# output

class Out:
    """Writes one JSON event per line, flushed at once; honours BATON_SHIM_DELAY_MS."""

    def __init__(self):
        try:
            self.delay = max(0, int(os.environ.get("BATON_SHIM_DELAY_MS") or 0)) / 1000.0
        except ValueError:
            self.delay = 0.0
        self.count = 0

    def line(self, text):
        if self.count and self.delay:
            time.sleep(self.delay)
        self.count += 1
        try:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader went away: the real CLIs die on a closed pipe too.
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            except OSError:
                pass
            os._exit(1)

    def event(self, obj):
        self.line(dumps(obj))


def dumps(obj):
    """Compact JSON with raw UTF-8, like JSON.stringify / serde_json."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def err(text):
    """Write text to stderr as is (the caller adds the newline)."""
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass


def append_jsonl(path, entries):
    if not entries:
        return
    data = "".join(dumps(e) + "\n" for e in entries)
    with open(path, "a", encoding="utf-8") as f:
        f.write(data)


def read_jsonl(path):
    rows = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    rows.append(json.loads(raw))
                except ValueError:
                    pass
    except OSError:
        pass
    return rows


# --------------------------------------------------------------------------
# stdin, log, markers

def stdin_is_tty():
    try:
        return os.isatty(0)
    except (OSError, ValueError):
        return False


def read_stdin():
    """Read stdin to EOF (bytes decoded as UTF-8); '' when stdin is closed."""
    try:
        data = sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        return ""
    return data.decode("utf-8", errors="replace")


# The system text the CLI received (Claude's appended text, Codex's developer_instructions),
# as read from argv, a file or a profile; logged with each invocation.
SYSTEM_TEXT = None


def _ignored_at_start():
    """The signals this process started with ignored (SigIgn of /proc/self/status), read as
    the module loads, before the shim sets any handler: an ignored SIGINT a CLI inherits
    would make an interrupt do nothing."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("SigIgn:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        pass
    return None


IGNORED_AT_START = _ignored_at_start()


def _life(what, **fields):
    path = os.environ.get("BATON_SHIM_LIFE")
    if not path:
        return
    rec = {"life": what, "pid": os.getpid(), "t": time.monotonic_ns()}
    rec.update(fields)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (json.dumps(rec) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def track_life(argv):
    """BATON_SHIM_LIFE: a `start` line (with the `--resume` id) as the process starts and an
    `exit` line as it exits (not on a fatal signal), on the system's monotonic clock: a test
    sees which processes were alive at once."""
    if not os.environ.get("BATON_SHIM_LIFE"):
        return
    resume = None
    if "--resume" in argv:
        i = argv.index("--resume")
        resume = argv[i + 1] if i + 1 < len(argv) else None
    _life("start", resume=resume)
    import atexit
    atexit.register(lambda: _life("exit"))


def log_invocation(cli, argv, stdin_text, turn=None, extra=None):
    """BATON_SHIM_LOG: one JSON line per invocation, written before any output. A process that
    runs several turns (claude's `--input-format stream-json`, `codex app-server`) logs each, with
    `turn` = 0, 1, … (its `pid` the same): a warm CLI's later turns start no process. `extra`:
    more fields of the record (app-server: the turn's `params`)."""
    path = os.environ.get("BATON_SHIM_LOG")
    if not path:
        return
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = os.environ.get("PWD", "")
    rec = {
        "cli": cli,
        "argv": list(argv),
        "stdin": stdin_text,
        "system": SYSTEM_TEXT,
        "cwd": cwd,
        "pid": os.getpid(),
        "env": {k: os.environ.get(k) for k in ("HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR",
                                                "BATON_PORT", "BATON_PORTS")},
        "sig_ignored": IGNORED_AT_START,
    }
    if turn is not None:
        rec["turn"] = turn
    if extra:
        rec.update(extra)
    try:
        # One write() of one line on an O_APPEND file: safe with parallel shims.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (dumps(rec) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def parse_markers(prompt):
    """The scripting markers of README.md, found anywhere in the prompt."""
    m = {"ctx": None, "window": None, "calls": 1, "fail": None, "hang": False, "deaf": False,
         "garbage": False, "die": False, "reply": None, "write": [], "hold": None, "tools": [],
         "deny": [], "linger": None}
    pos = 0
    while True:
        i = prompt.find("[[", pos)
        if i < 0:
            break
        j = prompt.find("]]", i + 2)
        if j < 0:
            break
        body = prompt[i + 2:j]
        pos = j + 2
        name, sep, val = body.partition(":")
        name = name.strip()
        if name in ("ctx", "window", "calls") and sep:
            try:
                v = int(val.strip().replace("_", "").replace(",", ""))
            except ValueError:
                continue
            if name == "calls":
                v = max(1, v)
            m[name] = max(0, v)
        elif name == "fail" and sep:
            m["fail"] = val.strip() or "api"
        elif name in ("hang", "garbage", "die", "deaf") and not sep:
            m[name] = True
        elif name == "reply" and sep:
            if m["reply"] is None:
                m["reply"] = val
        elif name == "write" and sep and val.strip():
            m["write"].append(val.strip())
        elif name in ("tool", "deny") and sep and val.strip():
            tool, _, arg = val.strip().partition(":")
            m["tools" if name == "tool" else "deny"].append((tool.strip(), arg.strip()))
        elif name in ("hold", "linger") and sep and val.strip():
            if m[name] is None:
                m[name] = val.strip()
        else:
            pos = i + 2  # not a marker: look again from just after '[['
    return m


def ephemeral_markers(prompt):
    """Markers for a run that keeps no session (claude --no-session-persistence, codex
    --ephemeral: baton's model-backed instruction extractor). BATON_SHIM_EPHEMERAL_REPLY, when
    set, is the whole answer (FAIL: an API failure) and the prompt's own markers are ignored, so
    a user's prompt quoted inside the request cannot script the run."""
    reply = os.environ.get("BATON_SHIM_EPHEMERAL_REPLY")
    if reply is None:
        return parse_markers(prompt)
    m = parse_markers("")
    if reply == "FAIL":
        m["fail"] = "api"
    else:
        m["reply"] = reply.replace("\\n", "\n")
    return m


def write_marker_files(paths, cwd):
    for p in paths:
        full = os.path.join(cwd, p)
        try:
            d = os.path.dirname(full)
            if d:
                os.makedirs(d, exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write("written by shim\n")
        except OSError as e:
            err("shim: [[write:%s]] failed: %s\n" % (p, e))


def tool_input(tool, arg, cwd):
    """The input a scripted [[tool:NAME:ARG]] / [[deny:NAME:ARG]] call carries, as the real tool's."""
    path = os.path.join(cwd, arg)
    if tool == "Bash":
        return {"command": arg, "description": "Run " + arg}
    if tool == "Edit":
        # The CLI prints `replace_all` first, whatever order the model sent.
        return {"replace_all": False, "file_path": path, "old_string": "old line", "new_string": "new line"}
    if tool == "Write":
        return {"file_path": path, "content": "written by shim\n"}
    if tool == "Read":
        return {"file_path": path}
    if tool in ("Grep", "Glob"):
        return {"pattern": arg}
    if tool in ("Task", "Agent"):
        return {"description": arg, "subagent_type": "general-purpose", "prompt": arg}
    return {"arg": arg}


STATE_NOTE = " (file state is current in your context \u2014 no need to Read it back)"
READ_CONTENT = "file content 42\n"


def tool_output(tool, arg, cwd):
    """What a scripted tool call gives back, in the real tools' words (fixtures/captures/tools;
    Bash: eight lines, so a cut is visible)."""
    if tool == "Bash":
        return "".join("%s: output line %d\n" % (arg, i) for i in range(1, 9)).rstrip("\n")
    if tool == "Edit":
        return "The file %s has been updated successfully.%s" % (os.path.join(cwd, arg), STATE_NOTE)
    if tool == "Write":
        return "File created successfully at: %s%s" % (os.path.join(cwd, arg), STATE_NOTE)
    if tool == "Read":
        return "1\tfile content 42\n2\t"
    return "ok"


def tool_use_result(tool, arg, cwd):
    """The structured `tool_use_result` of a scripted call's result line, as the real tools'."""
    path = os.path.join(cwd, arg)
    if tool == "Bash":
        return {"stdout": tool_output(tool, arg, cwd), "stderr": "", "interrupted": False, "isImage": False,
                "noOutputExpected": False}
    if tool == "Edit":
        return {"filePath": path, "oldString": "old line", "newString": "new line", "originalFile": "old line\n",
                "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                     "lines": ["-old line", "+new line"]}], "userModified": False,
                "replaceAll": False}
    if tool == "Write":
        return {"type": "create", "filePath": path, "content": "written by shim\n", "structuredPatch": [],
                "originalFile": None, "userModified": False}
    if tool == "Read":
        return {"type": "text", "file": {"filePath": path, "content": READ_CONTENT, "numLines": 2,
                                         "startLine": 1, "totalLines": 2}}
    return tool_output(tool, arg, cwd)


def default_reply(n, model, prompt):
    return "MOCK-REPLY #%d model=%s last_user=%s" % (n, model, prompt[:60])


GARBAGE_LINES = [
    "this is not JSON: the shim was told to print [[garbage]]",
    '{"type":"assistant","message":{"content":[{"type":"text","text":"trunc',
    "\x1b[31m<<< garbage >>>\x1b[0m",
    "]]}{ not json either",
]


# --------------------------------------------------------------------------
# signals

class Interrupted(BaseException):
    """Raised from the SIGINT handler so a turn stops wherever it is."""


def install_sigint():
    def handler(signum, frame):
        # Ignore further SIGINTs while cleaning up, then unwind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise Interrupted()
    signal.signal(signal.SIGINT, handler)
    # SIGTERM keeps its default action: the process dies at once (rollouts cut short).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def hang_forever():
    while True:
        signal.pause()


def sleep_ms(ms):
    if ms > 0:
        time.sleep(ms / 1000.0)


# --------------------------------------------------------------------------
# Claude Code: where sessions live

def claude_config_dir():
    d = os.environ.get("CLAUDE_CONFIG_DIR")
    if d:
        return d
    return os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), ".claude")


MAX_SANITIZED_LENGTH = 200


def _djb2_utf16(s):
    # claude-code src/utils/hash.ts djb2Hash: h = ((h << 5) - h + charCodeAt(i)) | 0,
    # starting at 0, over UTF-16 code units, as a signed 32-bit integer.
    h = 0
    data = s.encode("utf-16-le", "surrogatepass")
    for k in range(0, len(data), 2):
        h = (h * 31 + (data[k] | (data[k + 1] << 8))) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    return h


def _base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(digits[r])
    return "".join(reversed(out))


def sanitize_path(name):
    """Claude Code's sanitizePath (utils/sessionStoragePortable.ts).

    Every UTF-16 code unit outside [A-Za-z0-9] becomes '-'.  Longer than
    MAX_SANITIZED_LENGTH (200): cut at 200 and append '-' + hash, where hash is
    simpleHash(name) = Math.abs(djb2Hash(name)).toString(36) -- what the CLI
    computes when it runs on Node (the npm package).  Under Bun (the native
    build) it is Bun.hash(name).toString(36) instead; the CLI tolerates the
    mismatch by falling back to a prefix match (findProjectDir), as
    find_claude_project_dir() does here.
    """
    if not name.isascii():
        import unicodedata
        name = unicodedata.normalize("NFC", name)
    data = name.encode("utf-16-le", "surrogatepass")
    out = []
    for k in range(0, len(data), 2):
        u = data[k] | (data[k + 1] << 8)
        if (48 <= u <= 57) or (65 <= u <= 90) or (97 <= u <= 122):
            out.append(chr(u))
        else:
            out.append("-")
    sanitized = "".join(out)
    if len(sanitized) <= MAX_SANITIZED_LENGTH:
        return sanitized
    return "%s-%s" % (sanitized[:MAX_SANITIZED_LENGTH], _base36(abs(_djb2_utf16(name))))


def physical_cwd():
    try:
        return os.path.realpath(os.getcwd())
    except OSError:
        return os.path.realpath(os.environ.get("PWD") or ".")


def claude_project_dir(cwd):
    return os.path.join(claude_config_dir(), "projects", sanitize_path(cwd))


def find_claude_project_dir(cwd):
    """The cwd's project dir if it exists, with findProjectDir's prefix fallback."""
    exact = claude_project_dir(cwd)
    if os.path.isdir(exact):
        return exact
    sanitized = sanitize_path(cwd)
    if len(sanitized) <= MAX_SANITIZED_LENGTH:
        return None
    prefix = sanitized[:MAX_SANITIZED_LENGTH] + "-"
    projects = os.path.join(claude_config_dir(), "projects")
    try:
        for e in os.scandir(projects):
            if e.name.startswith(prefix) and e.is_dir():
                return e.path
    except OSError:
        pass
    return None


def claude_session_copies(session_id):
    """Every non-empty <id>.jsonl in the project dirs (a session copied into another checkout's
    folder shows up twice)."""
    name = session_id + ".jsonl"
    projects = os.path.join(claude_config_dir(), "projects")
    try:
        entries = sorted(os.scandir(projects), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for e in entries:
        p = os.path.join(e.path, name)
        try:
            if os.path.getsize(p) > 0:
                found.append(p)
        except OSError:
            pass
    return found


def find_claude_session(session_id, cwd, any_project):
    """Path of <id>.jsonl: in the cwd's project dir, else (2.1.332) in any project dir."""
    name = session_id + ".jsonl"
    d = find_claude_project_dir(cwd)
    if d:
        p = os.path.join(d, name)
        try:
            if os.path.getsize(p) > 0:
                return p
        except OSError:
            pass
    if not any_project:
        return None
    projects = os.path.join(claude_config_dir(), "projects")
    try:
        entries = list(os.scandir(projects))
    except OSError:
        return None
    for e in entries:
        p = os.path.join(e.path, name)
        try:
            if os.path.getsize(p) > 0:
                return p
        except OSError:
            pass
    return None


# --------------------------------------------------------------------------
# Codex: where rollouts live

def codex_home():
    d = os.environ.get("CODEX_HOME")
    if d:
        return d
    return os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), ".codex")


def find_rollout(thread_id):
    """sessions/YYYY/MM/DD/rollout-*-<id>.jsonl anywhere under $CODEX_HOME/sessions."""
    suffix = "-" + thread_id.lower() + ".jsonl"
    root = os.path.join(codex_home(), "sessions")
    found = None
    for dirpath, dirnames, filenames in os.walk(root):
        for fn in filenames:
            if fn.startswith("rollout-") and fn.lower().endswith(suffix):
                p = os.path.join(dirpath, fn)
                if found is None or p > found:
                    found = p
    return found


def list_rollouts():
    root = os.path.join(codex_home(), "sessions")
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for fn in filenames:
            if fn.startswith("rollout-") and fn.endswith(".jsonl"):
                out.append(os.path.join(dirpath, fn))
    return out

# --------------------------------------------------------------------------
# Claude Code event templates (static parts of the captured `system/init`
# events; the None values are filled in per run).

INIT_332 = r'''{"type":"system","subtype":"init","cwd":null,"session_id":null,"tools":["Task","Bash","CronCreate","CronDelete","CronList","Edit","EnterWorktree","ExitWorktree","ListAgents","Monitor","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskStop","ToolSearch","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":null,"permissionMode":null,"slash_commands":["deep-research","dataviz","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","doctor","loop","claude-api","workflow-authoring","run","run-skill-generator","plugin-authoring","agents","auto-mode-setup","autocompact","clear","color","compact","config","output-style","context","effort","fast","focus","heapdump","init","mcp","model","__remote-workflow","workflow-launch-exec","reload-plugins","reload-skills","rename","security-review","usage","insights","recap","goal","list-agents","team-onboarding"],"terminal_slash_commands":["doctor","color","focus","reload-plugins"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":null,"output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["deep-research","dataviz","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","doctor","loop","claude-api","workflow-authoring","run","run-skill-generator","plugin-authoring"],"plugins":[{"name":"cc-plugin-agents-md","path":"builtin","source":"cc-plugin-agents-md@builtin"},{"name":"cc-plugin-privacy","path":"builtin","source":"cc-plugin-privacy@builtin"},{"name":"cc-plugin-plugin-authoring","path":"builtin","source":"cc-plugin-plugin-authoring@builtin"}],"capabilities":["interrupt_receipt_v1","interrupt_cancel_queued_v1","interrupt_send_now_v1","interrupt_requeue_taken_v1","msg_lifecycle_v1","request_marker_lists_v1","ask_user_question_unanswered_v1","lifecycle_wakeup_source_v1","sdk_mcp_tools_list_changed","sdk_mcp_manifests","mcp_read_resource_v1","mcp_tool_ui_meta_v1","ui_surface_v1","mcp_call_result_not_for_model_v1","mcp_call_soft_error_result_v1","mcp_call_check_permissions_v1","voice_call_talk_line_v1","withdrawn_files_note_v2","withdrawn_tools_v1","ui_pane_widget_v1","reload_plugins_refuse_if_busy_v1","get_usage_detached_v1","silent_resend_files_v1"],"analytics_disabled":true,"product_feedback_disabled":true,"served_by_anthropic":false,"uuid":null,"sandbox_enabled":null,"memory_paths":null,"original_cwd":null,"additional_directories":null,"messaging_socket_path":null,"fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","per_turn_effort_active":true,"ultrathink_available":false,"ultrathink_typed_raises":false,"view_mode":"default"}'''

INIT_197 = r'''{"type":"system","subtype":"init","cwd":null,"session_id":null,"tools":["Task","Bash","CronCreate","CronDelete","CronList","Edit","EnterWorktree","ExitWorktree","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskCreate","TaskGet","TaskList","TaskOutput","TaskStop","TaskUpdate","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":null,"permissionMode":null,"slash_commands":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator","clear","compact","config","context","heapdump","init","reload-skills","review","security-review","usage","insights","goal","team-onboarding"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":null,"output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator"],"plugins":[],"analytics_disabled":true,"product_feedback_disabled":true,"uuid":null,"memory_paths":null,"fast_mode_state":"off"}'''


# --------------------------------------------------------------------------
# demo mode (BATON_SHIM_DEMO=1, set by `baton demo`): turns that read like an agent's session

# Each scene: the words that pick it (groups: the prompt, lowercased, holds a word of every
# group), the tool calls made before the answer (Claude's tool name, its input with paths
# relative to cwd, the result the model reads; Write and Edit really change the file), the
# answer, and how much the turn adds to the session's context (`grow`, of a 200,000 window: the
# script's health endpoint and README turns pass 45%, so its test opens a fresh conversation).
DEMO_SCENES = [
    {"words": [["review"]], "grow": 11000, "tools": [
        ("Bash", {"command": "cat src/server.rs"}, None),
        ("Bash", {"command": "cargo clippy --all-targets"},
         "    Checking billing v0.1.0\n    Finished `dev` profile in 2.31s\n"),
     ], "reply":
        "The change is small and reads well. Three notes:\n\n"
        "1. `health` answers 200 even while the database pool is still connecting; a load "
        "balancer will send traffic too early. Consider checking `pool.state()` and answering "
        "503 until it is ready.\n"
        "2. `/health` is added before `.layer(auth::layer())`, so it is behind auth like "
        "`/invoices`: probes usually cannot send a token. Route it on its own `Router` merged "
        "after the layer.\n"
        "3. `tests/health.rs` asserts only the status code; assert the JSON body too.\n\n"
        "Clippy is clean."},
    {"words": [["layout", "suggest"]], "grow": 6000, "tools": [
        ("Bash", {"command": "ls -R src tests"},
         "src:\nmain.rs\nserver.rs\ninvoices.rs\n\ntests:\nhealth.rs\n"),
        ("Bash", {"command": "grep -n 'pub fn' src/invoices.rs"},
         "4:pub fn total(lines: &[Line]) -> Cents {\n12:pub fn apply_discount(t: Cents, pct: u8) -> Cents {\n"),
     ], "reply":
        "The crate is small: `main.rs` starts the server, `server.rs` holds the routes and "
        "`invoices.rs` the arithmetic. Only `/health` has a test. I would add, in order:\n\n"
        "- `invoices::total` on an empty invoice, one line, and lines whose sum overflows `u32`;\n"
        "- `apply_discount` at 0% and 100%, and rounding at 33% (cents must not go missing);\n"
        "- a request test per route in `server.rs`, with and without a token.\n\n"
        "Want me to write the `invoices` ones first?"},
    {"words": [["readme", "document"]], "grow": 52000, "tools": [
        ("Read", {"file_path": "README.md"}, None),
        ("Edit", {"file_path": "README.md", "old_string": "# demo service\n",
                  "new_string": "# demo service\n\n## Health check\n\n`GET /health` answers "
                                "`200 OK` with `{\"status\":\"ok\"}` once the service is up.\n"},
         None),
     ], "reply":
        "Documented it: `README.md` has a **Health check** section saying what `GET /health` "
        "answers and when. I kept it to the behaviour callers rely on, not the handler's code."},
    {"words": [["test"], ["invoice", "total", "discount"]], "grow": 16000, "tools": [
        ("Bash", {"command": "cat src/invoices.rs"}, None),
        ("Write", {"file_path": "tests/invoices.rs", "content":
                   "use billing::invoices::{total, Line};\n\n#[test]\nfn an_empty_invoice_totals_zero() {\n"
                   "    assert_eq!(total(&[]), 0);\n}\n\n#[test]\nfn lines_add_up() {\n"
                   "    let lines = [Line { cents: 250 }, Line { cents: 175 }];\n"
                   "    assert_eq!(total(&lines), 425);\n}\n"}, None),
        ("Bash", {"command": "cargo test --test invoices"},
         "running 2 tests\ntest an_empty_invoice_totals_zero ... ok\ntest lines_add_up ... ok\n\n"
         "test result: ok. 2 passed; 0 failed; 0 ignored\n"),
     ], "reply":
        "Added `tests/invoices.rs` with the first two cases for `invoices::total`: an empty invoice "
        "totals 0, and line amounts add up. Both pass (`cargo test --test invoices`). Next: a sum "
        "that overflows, then `apply_discount` once it exists."},
    {"words": [["test"], ["health", "endpoint"]], "grow": 12000, "tools": [
        ("Write", {"file_path": "tests/health.rs", "content":
                   "#[tokio::test]\nasync fn health_answers_ok() {\n"
                   "    let app = billing::app().await;\n"
                   "    let res = app.get(\"/health\").await;\n"
                   "    assert_eq!(res.status(), 200);\n}\n"}, None),
        ("Bash", {"command": "cargo test --test health"},
         "running 1 test\ntest health_answers_ok ... ok\n\n"
         "test result: ok. 1 passed; 0 failed; 0 ignored\n"),
     ], "reply":
        "Added `tests/health.rs`: it starts the app in-process and checks that `GET /health` "
        "answers 200. It passes (`cargo test --test health`)."},
    {"words": [["health", "endpoint"]], "grow": 27000, "tools": [
        ("Read", {"file_path": "src/server.rs"}, None),
        ("Edit", {"file_path": "src/server.rs", "old_string": "        // routes\n",
                  "new_string": "        // routes\n        .route(\"/health\", get(health))\n"},
         None),
        ("Edit", {"file_path": "src/server.rs", "old_string": "// handlers\n",
                  "new_string": "// handlers\n\nasync fn health() -> Json<Value> {\n"
                                "    Json(json!({ \"status\": \"ok\" }))\n}\n"},
         None),
        ("Bash", {"command": "cargo build"},
         "   Compiling billing v0.1.0\n    Finished `dev` profile in 4.12s\n"),
     ], "reply":
        "Added a `/health` endpoint.\n\n"
        "- `src/server.rs`: a `health` handler answering `200 OK` with `{\"status\":\"ok\"}`, "
        "and its route next to the others.\n\n"
        "It builds. Next I would add a test for it and mention it in the README."},
]

DEMO_ANYTHING = {"grow": 9000, "tools": [
    ("Bash", {"command": "ls"}, "Cargo.toml\nREADME.md\nsrc\n"),
], "reply":
    "I looked at the project for this. (This is `baton demo`: the CLI is simulated and answers "
    "from a few canned sessions, so nothing here was really thought about. Try the keys: "
    "prefix ? lists them.)"}


def demo_on():
    return os.environ.get("BATON_SHIM_DEMO") == "1"


# What a new session's first call sends before the prompt: the CLI's system prompt and tools.
DEMO_BASE = 14000
# How long a demo model call takes (a real one takes seconds; a demo turn of 0.0 s would not).
DEMO_CALL_S = 0.25


def demo_scene(prompt):
    """The canned session a demo prompt picks: the first whose every word group it matches."""
    low = prompt.lower()
    return next((s for s in DEMO_SCENES if all(any(w in low for w in g) for g in s["words"])),
                DEMO_ANYTHING)


def demo_markers(mk, prompt):
    """The markers of a demo turn: a scene picked by the prompt's words fills in what the prompt's
    own markers leave unset (the answer, the context's growth, a 200,000 window, a call per tool).
    Off (the markers unchanged) unless BATON_SHIM_DEMO=1."""
    if not demo_on():
        return mk
    scene = demo_scene(prompt)
    mk = dict(mk)
    if mk["reply"] is None:
        mk["reply"] = scene["reply"]
    if mk["ctx"] is None:
        mk["demo_grow"] = scene["grow"]
    if mk["window"] is None:
        mk["window"] = 200000
    if mk["calls"] == 1:
        mk["calls"] = len(scene["tools"]) + 1
    mk["demo_tools"] = scene["tools"]
    return mk


def demo_context(mk, prior):
    """A demo turn's context: from what its session held (`prior` tokens; a new session starts at
    DEMO_BASE) by the scene's growth over the turn's calls, so it never falls within a session.
    Sets mk["ctx"] (the last call's) and mk["demo_span"]; nothing outside the demo."""
    grow = mk.get("demo_grow")
    if grow is None:
        return mk
    start = prior or DEMO_BASE
    mk["demo_span"] = (start, start + grow, bool(prior))
    mk["ctx"] = start + grow
    return mk


def demo_call(mk, i):
    """Call i (1-based) of a demo turn: (its context, what of it the provider had cached: the
    previous call's context), after the call's simulated time; None outside the demo."""
    span = mk.get("demo_span")
    if span is None:
        return None
    time.sleep(DEMO_CALL_S)
    start, end, resumed = span
    k = max(1, mk["calls"])
    at = lambda j: start + (end - start) * min(j, k) // k
    cached = at(i - 1) if (i > 1 or resumed) else 0
    return at(i), cached


def demo_tokens(ctx, cached):
    """A demo call's (uncached input, cache creation, cache read, output) for Claude: what the
    provider had cached is read from it, the rest is new, the model writes a few hundred."""
    out = min(300, ctx // 10)
    inp = min(4, ctx - out)
    cr = min(cached, ctx - out - inp)
    return inp, ctx - out - inp - cr, cr, out


def _demo_edit(name, inp, cwd):
    """A Write or Edit of a demo turn, done for real; returns what the model is told."""
    path = os.path.join(cwd, inp["file_path"])
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if name == "Write":
            text = inp["content"]
        else:
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                text = ""
            old = inp["old_string"]
            text = text.replace(old, inp["new_string"], 1) if old in text else text + inp["new_string"]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        return "Error: %s" % e
    if name == "Write":
        return "File created successfully at: %s" % path
    return "The file %s has been updated." % path


def _demo_read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def demo_tool(mk, i, cwd):
    """Tool call i (1-based) of a demo turn, made: (name, input with absolute paths, result
    text), or None outside the demo (the caller's default tool call stands)."""
    tools = mk.get("demo_tools") or []
    if i > len(tools):
        return None
    name, inp, result = tools[i - 1]
    inp = dict(inp)
    if "file_path" in inp:
        inp["file_path"] = os.path.join(cwd, inp["file_path"])
    if name in ("Write", "Edit"):
        result = _demo_edit(name, tools[i - 1][1], cwd)
    elif result is None and name == "Read":
        result = _demo_read(inp["file_path"])
    elif result is None:
        # `cat FILE`: the file as it is now.
        result = _demo_read(os.path.join(cwd, inp["command"].split()[-1]))
    return name, inp, result


def demo_command(mk, i, cwd):
    """Tool call i of a demo turn as a Codex command: (command, output), or None outside the
    demo. Claude's file tools become what Codex runs for them (`cat`, `apply_patch`)."""
    made = demo_tool(mk, i, cwd)
    if made is None:
        return None
    name, inp, result = made
    if name == "Bash":
        return inp["command"], result if result.endswith("\n") or not result else result + "\n"
    rel = os.path.relpath(inp["file_path"], cwd)
    if name == "Read":
        return "cat %s" % rel, result
    return "apply_patch", "Success. Updated the following files:\n%s %s\n" % ("A" if name == "Write" else "M", rel)


def demo_tool_result(made):
    """A demo tool call's result as Claude's stream carries it: (tool_result content,
    tool_use_result)."""
    name, inp, result = made
    if name == "Read":
        lines = result.splitlines()
        numbered = "".join("%d\t%s\n" % (k + 1, l) for k, l in enumerate(lines))
        return numbered, {"type": "text", "file": {
            "filePath": inp["file_path"], "content": result, "numLines": len(lines), "startLine": 1,
            "totalLines": len(lines)}}
    if name == "Bash":
        return result, {"stdout": result, "stderr": "", "interrupted": False, "isImage": False}
    kind = "create" if name == "Write" else "update"
    return result, {"type": kind, "filePath": inp["file_path"]}
