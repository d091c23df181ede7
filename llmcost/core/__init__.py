"""core: the nouns every other room uses: units and formatting, the model (ModelSpec), the
accelerator and cluster, tensor shapes, the data catalogues and the training stacks."""
