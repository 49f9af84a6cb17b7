"""The HTTP side of providers: the shared client and its pre-body retries, SSE decoding,
the streaming call and loop every HTTP provider runs, and secret-free error text.
"""
