# Tag sets another module builds from what it reads: rows of a csv reader (strings), a
# JSON document (strings or numbers: dp2ddp cannot tell), class ids (numbers).
import csv
import json

ROWS = ["EU\tB-ORG", "rejects\tO", "German\tB-MISC", "call\tO", "Peter\tB-PER",
        "Blackburn\tI-PER", "BRUSSELS\tB-LOC", "European\tI-ORG", "Union\tI-MISC"]


def csv_tags(lines):
    return set(row[1] for row in csv.reader(lines, delimiter="\t"))


def json_tags(text):
    return set(json.loads(text))


def class_ids(lines):
    ids = set()
    for line in lines:
        ids.add(len(line.split("\t")[1]))
    return ids


def pairs(lines):
    return {(len(line), int(line.count("\t"))) for line in lines}
