#!/usr/bin/env python3
"""The anchor of benchmark B2: a plain Python aiohttp streaming client, as the seed article's
script measures (a semaphore bounds concurrency; every SSE `data:` line whose delta has non-empty
content is timestamped when aiohttp hands the line over, before its JSON is parsed).

Usage: aiohttp_client.py URL MODEL CONCURRENCY REQUESTS MAX_TOKENS ID_PREFIX [BOOTSTRAP TOPIC]
With BOOTSTRAP and TOPIC it also does tpot's job as a Python user would: every token arrival is
published as a JSON event to Kafka through librdkafka (confluent_kafka, its defaults), keyed by request.
Prints one JSON object on stdout: {"requests": [{"id": ..., "arrivals": [ns, ...]}, ...],
"cpu_ns": ..., "wall_ns": ..., "chunks": ..., "errors": ..., "max_rss_kb": ...}; cpu_ns is this
process's user plus system time while streaming (not the interpreter's start); max_rss_kb its maximum
resident size (VmHWM in /proc/self/status; not ru_maxrss, which on Linux keeps the high-water mark of the
process that started this one: the benchmark's JVM, when it spawns the interpreter).
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


def max_rss_kb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def cpu_ns():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return int((r.ru_utime + r.ru_stime) * 1e9)


async def one(session, sem, url, model, max_tokens, request_id, results, errors, publish):
    async with sem:
        body = {
            "model": model,
            "messages": [{"role": "user", "content": "Write a long story."}],
            "max_tokens": max_tokens,
            "stream": True,
        }
        headers = {"X-Request-Id": request_id, "Accept-Encoding": "identity"}
        arrivals = []
        try:
            async with session.post(url, json=body, headers=headers) as resp:
                if resp.status != 200:
                    errors.append(resp.status)
                    return
                async for line in resp.content:
                    now = time.perf_counter_ns()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    chunk = json.loads(data)
                    choices = chunk.get("choices") or []
                    if choices and (choices[0].get("delta") or {}).get("content"):
                        arrivals.append(now)
                        if publish is not None:
                            publish(request_id, model, len(arrivals), now)
        except Exception as e:  # noqa: BLE001 - an anchor reports, it does not stop
            errors.append(str(e))
            return
        results.append({"id": request_id, "arrivals": arrivals})


async def main():
    url, model = sys.argv[1], sys.argv[2]
    concurrency, requests, max_tokens = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    prefix = sys.argv[6]
    producer, publish = None, None
    if len(sys.argv) > 8:
        from confluent_kafka import Producer
        producer = Producer({"bootstrap.servers": sys.argv[7]})
        topic = sys.argv[8]

        def publish(request_id, model, seq, now):
            event = {"type": "token", "requestId": request_id, "model": model, "seq": seq,
                     "tsNs": now, "tokens": 1}
            producer.produce(topic, json.dumps(event).encode(), key=request_id.encode())
            producer.poll(0)
    sem = asyncio.Semaphore(concurrency)
    results, errors = [], []
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        cpu0, wall0 = cpu_ns(), time.perf_counter_ns()
        await asyncio.gather(
            *(one(session, sem, url, model, max_tokens, f"{prefix}-{i}", results, errors, publish)
              for i in range(requests)))
        if producer is not None:
            producer.flush(60)
        cpu1, wall1 = cpu_ns(), time.perf_counter_ns()
    chunks = sum(len(r["arrivals"]) for r in results)
    json.dump({"requests": results, "cpu_ns": cpu1 - cpu0, "wall_ns": wall1 - wall0,
               "chunks": chunks, "errors": len(errors), "max_rss_kb": max_rss_kb(),
               "firstErrors": [str(e) for e in errors[:3]]}, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
