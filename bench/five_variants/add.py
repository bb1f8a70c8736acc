import json, sys
args = json.load(sys.stdin)
print(json.dumps({"message": str(args["a"] + args["b"])}))
