# Settings the QEMU STM32 boards share (qemu-netduinoplus2, qemu-netduino2):
# QEMU models the same timers and USART at the same addresses on both
# machines, runs them under -icount, and cannot measure the same series.
# Each board.cmake includes this file first, then sets what is its own; the
# host reads these settings through that include (src/catalog).
set(RB_BOARD_FLASHERS qemu)
set(RB_BOARD_EMULATOR qemu)
# Both machines map flash at 0x08000000; the flasher verifies the image there.
set(RB_BOARD_FLASH_BASE 0x08000000)
# The ruler and its unit on this bench (CONFIG counter=, unit=): every capture
# is verified against them (RB_BOARD_EXPECT_<key>).
set(RB_BOARD_EXPECT_counter tim2)
set(RB_BOARD_EXPECT_unit instructions)
set(RB_BOARD_EXPECT_irq_prio 14)
set(RB_BOARD_EXPECT_tick_prio 15)
set(RB_BOARD_EXPECT_pendsv_prio 15)
# Series this bench captures and verifies but cannot measure (one line each,
# the reason in [A-Za-z0-9_./ -]): reports show them as "not a measurement on
# this bench", never rank them; diff and regress never hold them against a
# tolerance (docs/firmware.md, "Boards").
set(RB_BOARD_NOT_MEASURED_irq_entry QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler - the dispatcher of a kernel that routes the vector through one - not the entry latency)
set(RB_BOARD_NOT_MEASURED_time_slice QEMU ends every slice on the tick so every kernel reads one tick)
set(RB_BOARD_NOT_MEASURED_sleep_wake_entry QEMU charges nothing for exception entry or wake-up: the figure counts the instructions from the vector to the first ruler read in the handler - not the wake-up latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_idle QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler and the instructions a window with interrupts masked delays it by - not the entry latency)
set(RB_BOARD_NOT_MEASURED_zli_entry_critical QEMU charges nothing for exception entry: the figure counts the instructions from the vector to the first ruler read in the handler and the instructions a window with interrupts masked delays it by - not the entry latency)
set(RB_BOARD_NOT_MEASURED_tick_sleep QEMU 7.2 SysTick and TIM2 disagree by a factor of 2 across a tickless WFI sleep - the four tickless ports read 999803 to 999962 ppm - so the figure is the emulator and not the kernel drift)
# No architectural lower bounds (RB_BOARD_LOWER_BOUND_*, see the F407's
# board.cmake): under -icount the unit is instructions, not core cycles, and
# QEMU charges nothing for exception entry, tail-chaining or exit, so the
# Cortex-M4's cycle figures bound nothing here.
# Series the emulator itself can move between two runs of one image (one line
# each, the reason in the same characters): repeated loads are not judged on
# them, as on the series above (docs/run.md, "Repeated loads"), and the tests
# that compare two runs leave them out (tests/board-unstable.sh). A series
# may be on both lists.
set(RB_BOARD_UNSTABLE_sleep_wake QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
set(RB_BOARD_UNSTABLE_sleep_wake_entry QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
# QEMU's USART1 ignores the rate; the host's serial stream has none.
set(RB_BOARD_UART_BAUD 115200)
set(RB_BOARD_CONSOLE USART1 QEMU serial 0)
# What kernels that own the vector table or the console driver need (their
# ports read these, never the board's name): the test timer's, the empty
# interrupt's and the zero-latency timer's handlers and NVIC numbers, the
# console USART, Zephyr's board and NuttX's board configuration.
set(RB_BOARD_ISR_TEST TIM3_IRQHandler)
set(RB_BOARD_ISR_EMPTY TIM4_IRQHandler)
set(RB_BOARD_IRQN_EMPTY 30)
set(RB_BOARD_ISR_ZLI TIM5_IRQHandler)
set(RB_BOARD_IRQN_ZLI 50)
set(RB_BOARD_CONSOLE_USART USART1_BASE)
set(RB_BOARD_CONSOLE_IRQN 37)
set(RB_BOARD_CONSOLE_ISR USART1_IRQHandler)
# The edge variant (RB_EDGES=on; docs/firmware.md, "Edges"): QEMU models no
# GPIO timing and the netduino2 maps no GPIO port, so the three channels are
# stores to TIM4 compare registers QEMU keeps and ignores (board.c).
set(RB_BOARD_EDGE_MK "TIM4_CCR2 store - no pin")
set(RB_BOARD_EDGE_EV "TIM4_CCR3 store - no pin")
set(RB_BOARD_EDGE_TK "TIM4_CCR4 store - no pin")
set(RB_BOARD_EDGE_PINS emulated)
