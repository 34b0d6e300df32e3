# The test firmware's board: the host facts of the real qemu-netduinoplus2
# board (src/catalog reads these one-line settings), with the CONFIG the
# test firmware's canned log carries. It builds no board code.
set(RB_BOARD_FLASHERS qemu)
set(RB_BOARD_EMULATOR qemu)
set(RB_BOARD_QEMU_MACHINE netduinoplus2)
set(RB_BOARD_FLASH_BASE 0x08000000)
set(RB_BOARD_EXPECT_counter tim2)
set(RB_BOARD_EXPECT_unit instructions)
set(RB_BOARD_UART_BAUD 115200)
set(RB_BOARD_CONSOLE USART1 QEMU serial 0)
set(RB_BOARD_NOT_MEASURED_irq_entry QEMU charges nothing for exception entry so every kernel reads the same ISR prologue)
set(RB_BOARD_UNSTABLE_sleep_wake QEMU 7.2 may warp virtual time while the core is halted in WFI - QEMU issue 2703)
