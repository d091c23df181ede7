"""Host-link figures the RL tests derive by hand, each with its source."""

#: The host link of one A100 or A800 GPU while every GPU of its server copies at once: PCIe Gen4
#: x16, 32 GB/s per direction, shared by the two GPUs under each x16 uplink of an 8-GPU A100
#: server (Azure's ND A100 v4 NCCL topology, Azure/azhpc-images topology/ndv4-topo.xml @
#: 4a4565a0: four 16 GT/s x16 bridges, two GPUs and two NICs under each): 16 GB/s.
A100_HOST_LINK = 32e9 / 2
