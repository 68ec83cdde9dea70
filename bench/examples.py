"""The golden examples of the functions (functions/<name>/examples/*.json: environment,
request or stdin, exit code) as runnable requests, for the bench scripts that run every
function once per example: memory.py (peak memory) and startup-order.py (the code they run).
"""
import json
import os
import tempfile


def examples():
    """(function, example path) for every example, in a fixed order."""
    for function in sorted(os.listdir("functions")):
        folder = os.path.join("functions", function, "examples")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.endswith(".json"):
                yield function, os.path.join(folder, name)


def prepare(path, out_dir):
    """The example's spec, the environment to run it with (a fresh SQLite store unless it
    names one) and the file holding its standard input."""
    spec = json.load(open(path))
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    environment.update(spec.get("environment", {}))
    if "STORE_URL" not in environment:
        store = tempfile.mkdtemp(dir=out_dir, prefix="memory-")
        environment["STORE_URL"] = "sqlite:" + os.path.join(store, "store.db")
    request = os.path.join(out_dir, "example-request.json")
    with open(request, "w") as file:
        file.write(spec["stdin"] if "stdin" in spec else json.dumps(spec["request"]))
    return spec, environment, request
