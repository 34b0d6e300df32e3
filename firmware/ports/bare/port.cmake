# The bare port: no kernel, our own minimal scheduler (rbp_bare.c). It needs
# no RB_KERNEL_SOURCE.
set(RB_PORT_SOURCES "${RB_PORT_DIR}/rbp_bare.c")
set(RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}")

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "it has no kernel, so no tick to stop")
