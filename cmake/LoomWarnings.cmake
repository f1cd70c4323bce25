# One place for the warning flags every Loom target is built with.
function(loom_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
endfunction()
