"""Parses a Prometheus text exposition (stdin) with prometheus_client's own parser (PyPI
`prometheus-client`, installed into var/python by `make deps`) and prints what it read as
JSON: one object per family, with its type, help and samples. A text the parser refuses
exits 1 with the parser's message."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def number(value):
    """JSON has no infinity nor NaN: those as Prometheus spells them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def main():
    text = sys.stdin.read()
    try:
        families = [
            {
                "name": family.name,
                "type": family.type,
                "help": family.documentation,
                "samples": [
                    {"name": sample.name, "labels": sample.labels, "value": number(sample.value)}
                    for sample in family.samples
                ],
            }
            for family in text_string_to_metric_families(text)
        ]
    except Exception as error:  # the parser's refusal, with its message
        print(json.dumps({"error": str(error)}))
        sys.exit(1)
    print(json.dumps({"families": families}))


main()
