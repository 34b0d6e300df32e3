# STM32F407G-DISC1: the seed-000 bench (docs/firmware.md, "Boards").
set(RB_BOARD_SOURCES
  "${RB_BOARD_DIR}/board.c"
  "${RB_BOARD_DIR}/../common/startup.c")
set(RB_BOARD_INCLUDE_DIRS "${RB_BOARD_DIR}")
set(RB_BOARD_LINKER_SCRIPT "${RB_BOARD_DIR}/../common/stm32f4.ld")
set(RB_BOARD_MAX_SAMPLES 13000)
