# The test firmware's Discovery board: the host facts of the real
# stm32f407-disco board the probe tests need (src/catalog reads these
# one-line settings). It builds no board code.
set(RB_BOARD_FLASHERS openocd pyocd)
set(RB_BOARD_TARGET_openocd target/stm32f4x.cfg)
set(RB_BOARD_TARGET_pyocd stm32f407vgtx)
set(RB_BOARD_DEV_ID 0x413)
set(RB_BOARD_DEVICE STM32F405/407/415/417)
set(RB_BOARD_FLASH_BASE 0x08000000)
set(RB_BOARD_DBGMCU_BASE 0xE0042000)
set(RB_BOARD_RESET_FLAGS_CLEAR 0x40023874 0x01000000)
set(RB_BOARD_UART_BAUD 921600)
set(RB_BOARD_CONSOLE USART2 TX PA2 RX PA3 8N1 3.3 V)
