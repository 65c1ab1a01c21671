# tests/corpus/gen-results.py - writes tests/corpus/results/*.json and
# expected.tsv: crafted results files, each with the error lab_results_load
# must give ("FILE: where: why"; FILE:LINE for a file that is not JSON) or
# "loads" (then the report built from it must escape its HTML).
# Run from the repository: python3 tests/corpus/gen-results.py tests/corpus/results
import json, os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def test(**kw):
    t = {"name": "t010-dvb-demux-feeds", "test": "t010-dvb-demux-feeds", "seed": "010",
         "guest": "tty", "kernel": "baseline", "verdict": "fail", "evidence": "signature",
         "reason": "the kernel reported this seed's bug", "knob": None,
         "dir": "tests/t010-dvb-demux-feeds", "exit_code": 1, "seconds": 1.5,
         "taint_before": 0, "taint_after": 512, "window_hits": -1,
         "reports": [{"type": "list-corruption", "title": "list_add corruption in dvb_dmxdev_start_feed",
                      "first_line": "list_add corruption.", "function": "dvb_dmxdev_start_feed",
                      "signature": True}]}
    for k, v in kw.items():
        if v is DROP:
            del t[k]
        else:
            t[k] = v
    return t
DROP = object()
def run(tests=None, **kw):
    r = {"run": "20261203-120000-baseline", "topology": "default", "kernel": "baseline",
         "kernel_key": "444f8730b9bb3784", "kernel_release": "6.1.192",
         "tests": [test()] if tests is None else tests}
    if tests is DROP:
        del r["tests"]
    for k, v in kw.items():
        if v is DROP:
            del r[k]
        else:
            r[k] = v
    return r
def js(o):
    return json.dumps(o, indent=2).encode()

cases = []
def case(name, data, expect):
    cases.append((name, data if isinstance(data, bytes) else js(data), expect))

S = "<script>alert(1)</script>"
# must load
case("ok-minimal", run(), "loads")
case("ok-empty-run", run(tests=[]), "loads")
case("ok-nulls", run(tests=[test(seed=None, guest=None, reason=None, dir=None, reports=None)]), "loads")
case("ok-script", run(id=S, run=S, topology=S, kernel=S, kernel_release=S,
     tests=[test(name=S, test=S, seed=S, guest=S, reason=S, knob=S, dir="tests/" + S,
                 reports=[{"type": S, "title": S, "first_line": S, "function": S, "signature": True}]),
            test(seed="010", name="t010" + S, reason=S, verdict="pass", evidence="none", reports=[])]), "loads")
case("ok-unicode", run(tests=[test(reason="naïve ☃ \u202e reversed", name="t\u00e9")]), "loads")
case("ok-long-string", run(tests=[test(reason="r" * 65536)]), "loads")
# a failure without a reason: its KTAP line took strstr(NULL) (fuzz_results)
case("ok-fail-no-reason", run(tests=[test(reason=DROP), test(name="t2", reason=None, verdict="error")]), "loads")
case("ok-whole-double", run(tests=[test(exit_code=1.0, taint_after=512.0)]), "loads")

# wrong types
case("top-array", b"[1, 2, 3]\n", "top level: not an object")
case("top-string", b"\"tests\"\n", "top level: not an object")
case("tests-number", run(tests=5), "tests: missing or not an array")
case("tests-object", run(tests={"a": 1}), "tests: missing or not an array")
case("test-number", run(tests=[7]), "tests: an entry is not an object")
case("name-number", run(tests=[test(name=5)]), "tests[0].name: not a string")
case("seed-array", run(tests=[test(seed=["010"])]), "tests[0].seed: not a string")
case("run-object", run(run={"id": 1}), "run: not a string")
case("verdict-bool", run(tests=[test(verdict=True)]), "tests[0].verdict: not a string")
case("exit-code-string", run(tests=[test(exit_code="1")]), "tests[0].exit_code: not a number")
case("seconds-string", run(tests=[test(seconds="fast")]), "tests[0].seconds: not a number")
case("signature-string", run(tests=[test(reports=[{"title": "x", "signature": "yes"}])]), "tests[0].reports[0].signature: not true or false")
case("reports-object", run(tests=[test(reports={})]), "tests[0].reports: not an array")
case("report-number", run(tests=[test(reports=[3])]), "tests[0].reports: an entry is not an object")
case("title-number", run(tests=[test(reports=[{"title": 42}])]), "tests[0].reports[0].title: not a string")

# missing members, bad values
case("no-tests", run(tests=DROP), "tests: missing or not an array")
case("empty-object", b"{}", "tests: missing or not an array")
case("no-name", run(tests=[test(name=DROP)]), "tests[0].name: missing")
case("no-verdict", run(tests=[test(), test(verdict=DROP)]), "tests[1].verdict: missing")
case("verdict-unknown", run(tests=[test(verdict="great")]), "tests[0].verdict: not a known verdict")
case("evidence-unknown", run(tests=[test(evidence="maybe")]), "tests[0].evidence: not signature, other or none")
case("exit-code-huge", run(tests=[test(exit_code=4294967297)]), "tests[0].exit_code: out of range")
case("exit-code-fraction", run(tests=[test(exit_code=1.5)]), "tests[0].exit_code: not a whole number in range")
case("exit-code-1e308", run(tests=[test(exit_code=1e308)]), "tests[0].exit_code: not a whole number in range")
# (double)LONG_MAX is 2^63: converting it to long was undefined (UBSan)
case("window-hits-2p63", b'{"tests": [{"name": "a", "verdict": "pass", "window_hits": 9.3e18}]}', "tests[0].window_hits: not a whole number in range")
case("taint-2p63", b'{"tests": [{"name": "a", "verdict": "pass", "taint_after": 9223372036854775808.0}]}', "tests[0].taint_after: not a whole number in range")
case("taint-negative", run(tests=[test(taint_before=-5)]), "tests[0].taint_before: out of range")
case("window-int64-min", b'{"tests": [{"name": "a", "verdict": "pass", "window_hits": -9223372036854775808}]}', "tests[0].window_hits: out of range")
case("seconds-negative", run(tests=[test(seconds=-1)]), "tests[0].seconds: out of range")
case("seconds-huge", run(tests=[test(seconds=1e300)]), "tests[0].seconds: out of range")
case("dir-dotdot", run(tests=[test(dir="../../etc")]), "tests[0].dir: must be a path inside the run")
case("dir-absolute", run(tests=[test(dir="/etc/passwd")]), "tests[0].dir: must be a path inside the run")
case("dir-script-dotdot", run(tests=[test(dir="tests/../" + S)]), "tests[0].dir: must be a path inside the run")
case("name-nul", b'{"tests": [{"name": "a\\u0000b", "verdict": "pass"}]}', "tests[0].name: holds a NUL character")
case("huge-string", run(tests=[test(reason="r" * 65537)]), "tests[0].reason: longer than 65536 bytes")
case("huge-title", run(tests=[test(reports=[{"title": "t" * 70000}])]), "tests[0].reports[0].title: longer than 65536 bytes")

# not JSON
case("empty-file", b"", "empty-file.json:1: not JSON")
case("not-json", b"not json at all\n", "not-json.json:1: not JSON")
case("truncated", js(run())[:200], "truncated.json:9: not JSON: the file ends inside a value")
case("trailing-text", js(run()) + b"\n<script>\n", "trailing-text.json:36: not JSON: text after the value")
case("two-values", b"{\"tests\": []} {\"tests\": []}", "two-values.json:1: not JSON: text after the value")
case("nan", b'{"tests": [{"name": "a", "verdict": "pass", "seconds": NaN}]}', "nan.json: tests[0].seconds: out of range")
case("trailing-comma", b'{"tests": [],}', "trailing-comma.json:1: not JSON")
case("ok-single-quotes", b"{'tests': []}", "loads")  # json-c's strict mode takes them
case("comment", b'{"tests": [] /* x */}', "comment.json:1: not JSON")
case("bad-utf8", b'{"tests": [{"name": "caf\xe9", "verdict": "pass"}]}', "bad-utf8.json:1: not JSON")
case("bad-utf8-line3", b'{\n "run": "x",\n "topology": "\xff\xfe",\n "tests": []}', "bad-utf8-line3.json:3: not JSON")
case("overlong-utf8", b'{"tests": [], "run": "\xc0\xbcscript>"}', "overlong-utf8.json: run: not valid UTF-8")
case("bom", b"\xef\xbb\xbf" + js(run()), "bom.json:1: not JSON")
case("deep-nesting", b"[" * 5000 + b"]" * 5000, "deep-nesting.json:1: not JSON")
case("nul-byte", b'{"tests": []}\x00', "nul-byte.json:1: not JSON")
case("ok-control-in-string", b'{"tests": [], "run": "a\x01b"}', "loads")  # as \u0001 would

names = set()
with open(os.path.join(out, "expected.tsv"), "w") as tsv:
    tsv.write("# file<TAB>substring of the error lab_results_parse must give (\"loads\": must load, its HTML escaped)\n")
    for name, data, expect in cases:
        assert name not in names, name
        names.add(name)
        with open(os.path.join(out, name + ".json"), "wb") as fh:
            fh.write(data)
        tsv.write(name + ".json\t" + expect + "\n")
print(len(cases), "cases")
