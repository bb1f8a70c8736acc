"""The parts of the official BFCL package (PyPI `bfcl-eval==2026.3.23`) this benchmark uses,
imported from the installed package itself: BFCL's function-doc conversion for OpenAI-style
function calling and its AST checker.

The package's declared dependencies include every model vendor's SDK, torch and vLLM clients; the
checker and the conversion need none of them. Two of the package's imports would pull them in
and are replaced by stand-ins before anything is imported, without touching the code that runs:

* `bfcl_eval.constants.model_config` imports every model handler. The checker reads one thing
  from it, `MODEL_CONFIG_MAPPING[model].underscore_to_dot`: whether to compare function names
  with `.` replaced by `_` (what BFCL does for OpenAI-style models, whose calls come back with
  the replaced names). This benchmark maps every called name back to BFCL's own name first, so
  the stand-in answers `False` for the one model name it scores under, `MODEL_NAME`.
* `bfcl_eval.model_handler.parser.java_parser` / `js_parser` import tree-sitter grammars used
  only to decode Java and JavaScript answers of prompting-mode models; `simple` (Python) and
  `multiple` never reach them.
"""

from __future__ import annotations

import copy
import sys
import types
from dataclasses import dataclass

MODEL_NAME = "wink"
BFCL_VERSION = "2026.3.23"


@dataclass(frozen=True)
class _ModelConfig:
    underscore_to_dot: bool


def _install_stand_ins() -> None:
    config = types.ModuleType("bfcl_eval.constants.model_config")
    config.MODEL_CONFIG_MAPPING = {MODEL_NAME: _ModelConfig(underscore_to_dot=False)}
    sys.modules.setdefault("bfcl_eval.constants.model_config", config)
    for module, function in [
        ("java_parser", "parse_java_function_call"),
        ("js_parser", "parse_javascript_function_call"),
    ]:
        name = f"bfcl_eval.model_handler.parser.{module}"
        stand_in = types.ModuleType(name)

        def unavailable(*_args, _module=module, **_kwargs):
            raise RuntimeError(f"{_module} is not installed (only Python categories are scored)")

        setattr(stand_in, function, unavailable)
        sys.modules.setdefault(name, stand_in)


_install_stand_ins()

try:
    import bfcl_eval  # noqa: E402
    from bfcl_eval.constants.enums import Language, ModelStyle  # noqa: E402
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI  # noqa: E402
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
    from bfcl_eval.model_handler.utils import convert_to_tool  # noqa: E402
    from bfcl_eval.utils import (  # noqa: E402
        add_language_specific_hint_to_function_doc,
        is_function_calling_format_output,
    )
except ImportError as error:  # pragma: no cover - depends on the environment
    raise SystemExit(
        f"bfcl-eval is not importable ({error}); run `bash bench/bfcl/setup.sh` and use the "
        "Python it prints"
    ) from error


def openai_tools(entry: dict) -> list[dict]:
    """The entry's functions as BFCL sends them to an OpenAI Chat Completions model: the
    language hint appended to each description, then `convert_to_tool` (names with `.` → `_`,
    BFCL types → JSON Schema types, `float` → `number` with `format: float`)."""
    hinted = add_language_specific_hint_to_function_doc([copy.deepcopy(entry)])[0]
    tools = convert_to_tool(hinted["function"], GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)
    return [tool["function"] for tool in tools]


def check(entry: dict, answer: dict, calls: list[dict], category: str) -> dict:
    """Scores one entry as BFCL's `ast_file_runner` does: the decoded calls
    (`[{name: {arg: value}}]`) must be in function-calling format, then `ast_checker` decides.
    Returns `{"valid", "error", "error_type"}`."""
    if not is_function_calling_format_output(calls):
        return {
            "valid": False,
            "error": ["Did not output in the specified format."],
            "error_type": "ast_decoder:decoder_wrong_output_format",
        }
    result = ast_checker(
        entry["function"],
        calls,
        answer["ground_truth"],
        Language.PYTHON,
        category,
        MODEL_NAME,
    )
    valid = bool(result["valid"])
    return {
        "valid": valid,
        "error": [] if valid else result.get("error", []),
        "error_type": "" if valid else result.get("error_type", ""),
    }


def installed_version() -> str:
    from importlib.metadata import version

    return version("bfcl-eval")


__all__ = ["BFCL_VERSION", "MODEL_NAME", "check", "installed_version", "openai_tools", "bfcl_eval"]
