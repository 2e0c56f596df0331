"""Stream one OpenAI-compatible request and timestamp it: send, every token chunk, end, usage.

Times are ``time.perf_counter()`` seconds. A chunk is a *token chunk* when a choice carries
generated text: ``choices[i].text`` (completions) or ``choices[i].delta.content`` (chat; or a
reasoning model's ``delta.reasoning_content``), **even when that text is empty** — a
detokenizer holds back the text of a token that ends inside a UTF-8 character (byte-fallback
tokens) or of a special token, yet the token was generated then. That includes the last chunk:
vLLM sends the request's last token with its ``finish_reason``, as ``"text": ""`` when its text
is held back, and its own E2E ends there (`vllm bench serve` times every chunk with choices too).
Not token chunks: a usage-only chunk (no choices), a chat role announcement (``delta.role`` with
empty content) and a choice with no text field at all (a chat end marker ``"delta": {}``).
Output tokens come from ``usage.completion_tokens`` (we send ``stream_options.include_usage``);
without usage, the number of token chunks stands in.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from rooftop.serving.loadgen.prompts import Request

if TYPE_CHECKING:
    import aiohttp


class RequestRecord(msgspec.Struct):
    """What happened to one request. Offsets are seconds since the run's start."""

    index: int
    scheduled_s: float
    sent_s: float = float("nan")
    chunk_s: list[float] = msgspec.field(default_factory=list)
    end_s: float = float("nan")
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    error: str = ""
    finished: bool = False  # [DONE] or a finish_reason seen: the stream was not cut

    @property
    def ok(self) -> bool:
        """Succeeded with at least one token chunk."""
        return not self.error and bool(self.chunk_s)

    @property
    def ttft_s(self) -> float:
        """First token chunk − send."""
        return self.chunk_s[0] - self.sent_s if self.chunk_s else float("nan")

    @property
    def e2e_s(self) -> float:
        """Last token chunk − send (as vllm bench serve)."""
        return self.chunk_s[-1] - self.sent_s if self.chunk_s else float("nan")

    @property
    def n_tokens(self) -> int:
        """Output tokens: usage, else token chunks."""
        return self.output_tokens if self.output_tokens is not None else len(self.chunk_s)

    @property
    def tpot_s(self) -> float:
        """(E2E − TTFT)/(n − 1); NaN when n ≤ 1."""
        n = self.n_tokens
        return (self.e2e_s - self.ttft_s) / (n - 1) if n > 1 else float("nan")

    @property
    def itl_s(self) -> list[float]:
        """Gaps between successive token chunks (a multi-token chunk gives one gap)."""
        return [b - a for a, b in zip(self.chunk_s, self.chunk_s[1:])]

    @property
    def schedule_lag_s(self) -> float:
        """How late the request left against its scheduled time (the generator's own error)."""
        return self.sent_s - self.scheduled_s

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (per-request results file)."""
        return {
            "index": self.index,
            "scheduled_s": self.scheduled_s,
            "sent_s": self.sent_s,
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "e2e_s": self.e2e_s,
            "chunks": len(self.chunk_s),
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
            "error": self.error,
        }


def body(req: Request, model: str, chat: bool, ignore_eos: bool) -> dict[str, Any]:
    """The JSON body of a streaming completion request."""
    payload: dict[str, Any] = {
        "model": model,
        "max_tokens": req.output_len,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.0,
    }
    if ignore_eos:
        # vLLM/SGLang extension: generate exactly max_tokens (as vllm bench serve --ignore-eos; a
        # min_tokens would be redundant and adds a logits processor to every step of the batch)
        payload["ignore_eos"] = True
    if chat:
        payload["messages"] = req.prompt
    else:
        payload["prompt"] = req.prompt
    return payload


MAX_LINE_BYTES = 4 << 20  # one SSE line: a token chunk is under 1 KB; a longer line is refused
_COUNT = Annotated[int, msgspec.Meta(ge=0, le=2**40)]


class _Details(msgspec.Struct):
    cached_tokens: _COUNT | None = None


class _Usage(msgspec.Struct):
    prompt_tokens: _COUNT | None = None
    completion_tokens: _COUNT | None = None
    prompt_tokens_details: _Details | None = None


class _Delta(msgspec.Struct):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    role: str | msgspec.UnsetType | None = msgspec.UNSET


class _Choice(msgspec.Struct):
    text: str | msgspec.UnsetType | None = msgspec.UNSET
    delta: _Delta | msgspec.UnsetType | None = msgspec.UNSET
    finish_reason: str | None = None


class _Chunk(msgspec.Struct):
    """One streamed chunk, typed: counts are non-negative integers, choices a list of objects."""

    choices: list[_Choice] | None = None
    usage: _Usage | None = None
    error: Any = None


_DECODE = msgspec.json.Decoder(_Chunk).decode


def _carries_token(choice: _Choice) -> bool:
    """Whether one streamed choice carries a generated token (its text may be empty; see above)."""
    if choice.delta is not msgspec.UNSET:
        delta = choice.delta or _Delta()
        text = next((t for t in (delta.content, delta.reasoning_content, delta.reasoning) if t is not None), None)
        return text is not None and (bool(text) or delta.role is msgspec.UNSET)  # not a role announcement
    return choice.text is not None and choice.text is not msgspec.UNSET


def _usage(rec: RequestRecord, usage: _Usage) -> None:
    rec.prompt_tokens = usage.prompt_tokens
    rec.output_tokens = usage.completion_tokens
    rec.cached_tokens = usage.prompt_tokens_details.cached_tokens if usage.prompt_tokens_details else None


def _event(rec: RequestRecord, data: bytes, now: float) -> bool:
    """Apply one SSE ``data:`` payload to ``rec``; False when the stream is over ([DONE] or error).

    A chunk of another shape (``"usage": 5``, string counts, ``"choices": 5``, ``"delta": "x"``,
    negative counts) fails this request with the reason, never the run.
    """
    if data == b"[DONE]":
        rec.finished = True
        return False
    try:
        event = _DECODE(data)
    except msgspec.ValidationError as exc:
        rec.error = f"malformed chunk: {str(exc)[:120]}"
        return False
    except msgspec.DecodeError:
        rec.error = f"bad SSE data: {data[:80]!r}"
        return False
    if event.error:
        rec.error = f"stream error: {str(event.error)[:200]}"
        return False
    choices = event.choices or ()
    if any(_carries_token(c) for c in choices):
        rec.chunk_s.append(now)
    if any(c.finish_reason for c in choices):
        rec.finished = True
    if event.usage:
        _usage(rec, event.usage)
    return True


async def send(
    session: aiohttp.ClientSession, url: str, payload: dict[str, Any], rec: RequestRecord, t0: float, timeout_s: float
) -> RequestRecord:
    """POST ``payload`` to ``url`` and fill ``rec``; never raises (errors land in ``rec.error``).

    Every network read is timestamped once, when it arrives; the SSE lines it holds share that
    time (a line split across reads gets the time of the read that completed it).
    """
    import aiohttp

    rec.sent_s = time.perf_counter() - t0
    try:
        async with session.post(url, json=payload, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            if resp.status != 200:
                text = (await resp.read()).decode("utf-8", "replace")
                rec.error = f"HTTP {resp.status}: {text[:200]}"
                return rec
            rest, going = b"", True
            async for piece in resp.content.iter_any():
                now = time.perf_counter() - t0
                *lines, rest = (rest + piece).split(b"\n")
                if len(rest) > MAX_LINE_BYTES:
                    rec.error = f"an SSE line longer than {MAX_LINE_BYTES >> 20} MiB"
                    break
                for line in lines:
                    if line.startswith(b"data:"):
                        going = _event(rec, line[5:].strip(), now)
                        if not going:
                            break
                if not going:
                    break
        rec.end_s = time.perf_counter() - t0
        if not rec.error and not rec.chunk_s:
            rec.error = "no token in the stream"
        elif not rec.error and not rec.finished:
            rec.error = "stream cut: no [DONE] and no finish_reason"
    except TimeoutError:
        rec.error = f"timeout after {timeout_s:g} s"
    except aiohttp.ClientConnectorError as exc:
        rec.error = f"unreachable: {exc}"[:200]
    except aiohttp.ClientError as exc:
        rec.error = f"{type(exc).__name__}: {exc}"[:200]
    return rec
