"""Open-loop load generator for OpenAI-compatible streaming endpoints (``rooftop bench``).

``arrivals`` schedules send times, ``prompts`` makes the requests, ``client`` streams one request
and timestamps every chunk, ``runner`` drives them open-loop, ``summary`` turns records into
TTFT/TPOT/ITL/E2E quantiles and goodput, ``sweep`` finds the knee of a rate curve.
"""
