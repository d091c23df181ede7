"""training: what a pre-training run takes: FLOPs and MFU, batch size, memory, parallel plans,
communication and its overlap, stragglers, the step-time model, failures and checkpoints, and
the accuracy of the step model against published runs."""
