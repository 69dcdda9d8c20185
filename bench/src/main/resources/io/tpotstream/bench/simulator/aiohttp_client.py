"""A third-party client for the simulator: the seed article's way of measuring TPOT (Python, aiohttp,
a semaphore bounding concurrency, one timestamp per SSE data line whose delta carries content), with
nothing of tpot-stream in it. It sends no X-Request-Id, as that script does.

usage: python3 aiohttp_client.py BASE_URL MODEL REQUESTS CONCURRENCY MAX_TOKENS
prints one JSON line: {"requests", "completed", "errors", "chunks": [content chunks per request],
"gapP50Ms", "gapP99Ms"} (the client's own gaps, nearest rank)
"""
import asyncio
import json
import math
import sys
import time

import aiohttp


async def one(session, semaphore, url, model, max_tokens, result):
    async with semaphore:
        body = {"model": model, "stream": True, "max_tokens": max_tokens,
                "messages": [{"role": "user", "content": "Tell me a long story."}]}
        try:
            async with session.post(url, json=body,
                                    headers={"Authorization": "Bearer sk-any"}) as response:
                if response.status != 200:
                    result["errors"] += 1
                    return
                last = None
                chunks = 0
                async for raw in response.content:
                    line = raw.decode("utf-8").strip()
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    choices = json.loads(data).get("choices") or []
                    if choices and choices[0].get("delta", {}).get("content"):
                        now = time.perf_counter_ns()
                        if last is not None:
                            result["gaps"].append(now - last)
                        last = now
                        chunks += 1
                result["chunks"].append(chunks)
                if chunks >= 2:
                    result["completed"] += 1
                else:
                    result["errors"] += 1
        except aiohttp.ClientError:
            result["errors"] += 1


async def main(base_url, model, requests, concurrency, max_tokens):
    semaphore = asyncio.Semaphore(concurrency)
    result = {"completed": 0, "errors": 0, "chunks": [], "gaps": []}
    url = base_url.rstrip("/") + "/chat/completions"
    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(one(session, semaphore, url, model, max_tokens, result)
                               for _ in range(requests)))
    gaps = sorted(result.pop("gaps"))

    def rank(p):
        return gaps[max(0, math.ceil(p / 100 * len(gaps)) - 1)] / 1e6 if gaps else None

    result.update(requests=requests, gapP50Ms=rank(50), gapP99Ms=rank(99))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    a = sys.argv
    asyncio.run(main(a[1], a[2], int(a[3]), int(a[4]), int(a[5])))
