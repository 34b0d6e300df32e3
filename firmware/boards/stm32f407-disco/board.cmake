# STM32F407G-DISC1: the seed-000 bench (docs/firmware.md, "Boards").
# The host reads these lines at its build (src/matrix/boards.cmake): the
# flashers a bench may name for this board, and each one's default target
# (a bench's probe.target overrides it).
set(RB_BOARD_FLASHERS openocd pyocd)
set(RB_BOARD_TARGET_openocd target/stm32f4x.cfg)
set(RB_BOARD_TARGET_pyocd stm32f407vgtx)
# The CPU (STM32F4: Cortex-M4F, 4 implemented NVIC priority bits). The harness
# and the ports see the priority facts as RB_NVIC_PRIO_BITS, RB_TICK_PRIO (15,
# SysTick and PendSV) and RB_IRQ_PRIO (14, the test timer); firmware/CMakeLists.txt
# derives the levels from the bits unless RB_BOARD_TICK_PRIO/RB_BOARD_IRQ_PRIO
# are set here.
set(RB_BOARD_CPU_FLAGS -mcpu=cortex-m4 -mthumb)
set(RB_BOARD_HARD_FLOAT_FLAGS -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(RB_BOARD_SOFT_FLOAT_FLAGS -mfloat-abi=soft)
set(RB_BOARD_NVIC_PRIO_BITS 4)
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/../common/stm32f4.ld")
set(RB_BOARD_MAX_SAMPLES 13000)
# The console (USART2 on PA2/PA3): 921600 baud 8N1, the divider computed from
# the APB1 clock read back from RCC; the host refuses a bench whose
# serial.baud differs (src/matrix/boards.cmake reads this line). The crystal:
# X2 on the Discovery is 8 MHz (UM1472); a board with another crystal sets it here.
set(RB_BOARD_UART_BAUD 921600)
set(RB_BOARD_CONSOLE USART2 TX PA2 RX PA3 8N1 3.3 V)
set(RB_BOARD_HSE_HZ 8000000)
