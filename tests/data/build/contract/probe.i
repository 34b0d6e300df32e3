# 0 "contract/header-0.c"
# 0 "<built-in>"
# 1 "contract/header-0.c"
# 1 "/src/firmware/ports/rtthread/rtconfig.h" 1
# 2 "contract/header-0.c" 2
"rbcontract:RT_DEBUG" rbcontract_undefined
"rbcontract:RT_USING_HOOK" 
"rbcontract:RT_TICK_PER_SECOND" (1000U)
"rbcontract:RT_NAME_MAX" 8
