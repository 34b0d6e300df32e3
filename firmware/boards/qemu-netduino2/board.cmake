# QEMU netduino2 (STM32F205 model, Cortex-M3 without FPU): the emulated twin
# of the GD32F103C8 (issue 31): ARMv7-M without FP, 4 NVIC priority bits, and
# the part's 64 KB of flash and 20 KB of SRAM (netduino2-20k.ld). Its timers
# and USART are QEMU's netduinoplus2 models at the same addresses, so the
# board code is that board's board.c; what differs is here and in
# rb_board_hw.h (the core: 120 MHz SYSCLK; no FPU; the RAM split below).
# The host reads the one-line set(RB_BOARD_...) settings of this file and of
# the file it includes at run time (src/catalog, docs/firmware.md "Boards").
include("${RB_BOARD_DIR}/../common/qemu-stm32.cmake")
include("${RB_BOARD_DIR}/../common/qemu-tick-caps.cmake")
set(RB_BOARD_QEMU_MACHINE netduino2)
# The core clock the firmware assumes (SysTick at QEMU's 120 MHz SYSCLK).
# No FPU: an fpu_context=1 job is not built here (PORT_MISSING).
set(RB_BOARD_EXPECT_core 120000000)
# The CPU (STM32F205 and GD32F103: Cortex-M3, no FPU, 4 implemented NVIC
# priority bits; QEMU 7.2 keeps all 8, the harness writes and reads the top
# 4). The levels follow from the bits as on the other boards (15 for SysTick
# and PendSV, 14 for the test timer). A port picks its kernel's CPU port from
# -mcpu= (firmware/CMakeLists.txt, RB_CPU): FreeRTOS' GCC/ARM_CM3 here; a
# port whose recipe lists no cortex-m3 in RB_PORT_CPUS is PORT_MISSING.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m3 -mthumb)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/../qemu-netduinoplus2/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/netduino2-20k.ld")
# Small RAM (docs/firmware.md, "Small RAM"): 20 KB hold the 6 harness task
# stacks, the kernel's own (idle, timer), the heap test's arena, the main
# stack (1 KB, netduino2-20k.ld) and two sample buffers. So every task stack
# is 224 words (a FreeRTOS run here with 256-word stacks left at least 124
# of them untouched: END stack_min_free_words), the heap arena 2048 bytes,
# and every test keeps at most 256 samples (CONFIG samples.<test>=256 beside samples=, so the
# report shows the smaller count; the warm-up is not stored and stays).
set(RB_BOARD_STACK_WORDS 224)
set(RB_BOARD_HEAP_BYTES 2048)
set(RB_BOARD_SAMPLES_CAP 256)
set(RB_BOARD_MAX_SAMPLES 256)
# The heap test's per-round figures (three words a round): at most 32 rounds,
# not 128. With a 2048-byte arena and 256 samples a run needs 11 or 12 (FreeRTOS:
# warm-up plus samples allocations at about 115 a round); 96 rounds' arrays
# (1152 bytes) are what TencentOS' TLSF control block and RT-Thread's shell need.
set(RB_BOARD_HEAP_ROUNDS 32)
# Zephyr (firmware/ports/zephyr): the out-of-tree board
# ports/zephyr/app/boards/arm/rb_netduino2 (the STM32F205, its flash and SRAM
# cut to 64 KB and 19 KB); the last KB of the 20 KB holds tick_overhead's
# copy of Zephyr's vector table (98 words). Zephyr's own stacks in the
# small RAM: the ISR stack is the 1 KB main stack the other kernels get
# (netduino2-20k.ld), the main thread (the harness' main()) 1 KB, the idle
# thread 512 bytes (in bytes; image.cmake writes them into the Kconfig).
set(RB_BOARD_ZEPHYR_BOARD rb_netduino2)
set(RB_BOARD_ZEPHYR_RAM_VECTORS 0x20004C00u)
set(RB_BOARD_ZEPHYR_ISR_STACK_SIZE 1024)
set(RB_BOARD_ZEPHYR_MAIN_STACK_SIZE 1024)
set(RB_BOARD_ZEPHYR_IDLE_STACK_SIZE 512)
# NuttX (ports/nuttx/image.cmake): the official EMW3162 board configuration,
# NuttX's one STM32F205RG board without a boot loader offset (120 MHz SYSCLK in
# its board.h, as QEMU's), with the port's empty clock set-up (QEMU does not
# model RCC). The image gets the part's 64 KB of flash and 20 KB of RAM less
# the top 512 bytes, which hold tick_overhead's copy of NuttX's vector table.
set(RB_BOARD_NUTTX_BOARD emw3162)
set(RB_BOARD_NUTTX_BOARD_KCONFIG EMW3162)
set(RB_BOARD_NUTTX_CHIP STM32F205RG)
set(RB_BOARD_NUTTX_FLASH_SIZE 65536)
set(RB_BOARD_NUTTX_RAM_SIZE 19968)
set(RB_BOARD_NUTTX_RAM_VECTORS 0x20004E00)
set(RB_BOARD_NUTTX_CUSTOM_CLOCKS ON)
