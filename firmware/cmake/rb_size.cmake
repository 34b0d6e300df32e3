# Post-build step: writes size.txt (arm-none-eabi-size, Berkeley format) and
# size.json {"text","data","bss","flash","ram"} where flash = text + data (the
# image) and ram = data + bss (static RAM, stacks and sample buffers included).
# Inputs: SIZE_TOOL, ELF, OUT_DIR.
execute_process(COMMAND "${SIZE_TOOL}" --format=berkeley "${ELF}"
  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIZE_TOOL} failed on ${ELF}: ${err}")
endif()
file(WRITE "${OUT_DIR}/size.txt" "${out}")
string(REGEX MATCH "\n[ \t]*([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)" m "${out}")
if(NOT m)
  message(FATAL_ERROR "cannot parse the output of ${SIZE_TOOL}: ${out}")
endif()
set(text ${CMAKE_MATCH_1})
set(data ${CMAKE_MATCH_2})
set(bss ${CMAKE_MATCH_3})
math(EXPR flash "${text} + ${data}")
math(EXPR ram "${data} + ${bss}")
file(WRITE "${OUT_DIR}/size.json"
  "{\"text\":${text},\"data\":${data},\"bss\":${bss},\"flash\":${flash},\"ram\":${ram}}\n")
