"""serving: what a served token costs (prefill and decode on a roofline, the KV cache) and the
RL post-training loop that mixes generation with training."""
