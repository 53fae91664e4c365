"""Long outputs: replies under token caps, whether they finish, pass tests, validate, loop. The
declaration and the meaning checks of the receipt's `long_outputs` part."""
from __future__ import annotations

from site_gen.core.errors import SitegenError
from site_gen.receipts.rules import require
from site_gen.sections.base import Section


def check(long_outputs: dict, file, checkpoint_ref) -> None:
    # Each message and path is made only for the record at fault: a receipt holds thousands of replies.
    caps = long_outputs["caps"]
    for i, cap in enumerate(caps):
        require(cap not in caps[:i], f"duplicate cap {cap}", file, f"$.long_outputs.caps[{i}]")
    arms: dict[str, dict] = {}
    runs: dict[tuple, int] = {}
    for i, arm in enumerate(long_outputs["arms"]):
        checkpoint_ref(arm["checkpoint"], f"$.long_outputs.arms[{i}].checkpoint")
        require(arm["id"] not in arms, f"duplicate arm id '{arm['id']}'", file, f"$.long_outputs.arms[{i}].id")
        arms[arm["id"]] = arm
        # Two arms of one run would show the same replies twice, as if measured twice.
        run = (arm["checkpoint"], arm["engine"], arm["run"])
        require(run not in runs, f"arm '{arm['id']}' is the same run as $.long_outputs.arms[{runs.get(run)}] "
                f"(checkpoint {run[0]}, {run[1]}, run {run[2]!r})", file, f"$.long_outputs.arms[{i}].run")
        runs[run] = i
    seen_replies = set()
    known_caps = set(caps)
    for i, reply in enumerate(long_outputs["replies"]):
        if reply["arm"] not in arms:
            raise SitegenError(f"unknown arm '{reply['arm']}'; declared: {', '.join(arms)}", file, f"$.long_outputs.replies[{i}].arm")
        if reply["cap"] not in known_caps:
            raise SitegenError(f"cap {reply['cap']} is not one of $.long_outputs.caps", file, f"$.long_outputs.replies[{i}].cap")
        if reply["thinking_tokens"] > reply["reply_tokens"]:
            raise SitegenError("thinking_tokens cannot exceed reply_tokens", file, f"$.long_outputs.replies[{i}].thinking_tokens")
        _impossible_reply(reply, file, i)
        key = (reply["arm"], reply["cap"], reply["prompt"])
        if key in seen_replies:
            raise SitegenError("duplicate reply (same arm, cap and prompt)", file, f"$.long_outputs.replies[{i}]")
        seen_replies.add(key)


def _impossible_reply(reply: dict, file, i: int) -> None:
    if reply["reply_tokens"] > reply["cap"]:
        raise SitegenError(f"reply_tokens {reply['reply_tokens']} above the reply's cap {reply['cap']}", file,
                           f"$.long_outputs.replies[{i}].reply_tokens")
    if reply["finished"] and reply["still_thinking"]:
        raise SitegenError("a finished reply cannot be still thinking (still_thinking says where a capped reply was cut)",
                           file, f"$.long_outputs.replies[{i}].still_thinking")
    # The pages count an unfinished reply as cut at its cap, and one still thinking there as all thinking.
    if not reply["finished"] and reply["reply_tokens"] != reply["cap"]:
        raise SitegenError(f"an unfinished reply is cut at its cap {reply['cap']}, but its reply_tokens are {reply['reply_tokens']}",
                           file, f"$.long_outputs.replies[{i}].reply_tokens")
    if reply["still_thinking"] and reply["thinking_tokens"] != reply["reply_tokens"]:
        raise SitegenError(f"a reply cut while still thinking is all thinking, but its thinking_tokens {reply['thinking_tokens']} "
                           f"are below its reply_tokens {reply['reply_tokens']}", file, f"$.long_outputs.replies[{i}].thinking_tokens")
    # Tables count these for their own category only: on another they would vanish unseen.
    for flag, category in (("tests_passed", "code"), ("json_valid", "json")):
        if flag in reply and reply["category"] != category:
            raise SitegenError(f"{flag} is for {category} replies; this reply is {reply['category']}", file, f"$.long_outputs.replies[{i}].{flag}")


def engine_records(data: dict):
    for i, r in enumerate(data.get("long_outputs", {}).get("arms", [])):
        yield r["checkpoint"], r["engine"], f"$.long_outputs.arms[{i}]"


SECTION = Section(
    key="long-outputs", title="Long outputs", package=__name__, name="long_outputs", check=check,
    records="replies", light=True, engine_records=engine_records, provenance=True, texts=("note", "explanations"), order=50,
)
