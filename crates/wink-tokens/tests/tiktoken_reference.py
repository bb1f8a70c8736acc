"""Token ids from OpenAI's `tiktoken` (pinned: tiktoken==0.12.0, installed by scripts/setup.sh)
for `tests/tiktoken.rs`: reads a JSON list of strings on stdin, writes a JSON list of
`encode_ordinary` results.

tiktoken downloads its vocabulary on first use; the test instead seeds TIKTOKEN_CACHE_DIR with the
repository's copy (`data/o200k_base.tiktoken`) under the name tiktoken gives the download, and
tiktoken checks its SHA-256 (446a9538…) before using it, so the reference is tiktoken's own.
"""
import json
import sys

import tiktoken

encoding = tiktoken.get_encoding("o200k_base")
texts = json.load(sys.stdin)
json.dump([encoding.encode_ordinary(text) for text in texts], sys.stdout)
