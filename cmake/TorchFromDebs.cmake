# libtorch taken by path from Debian packages unpacked with `dpkg -x` into
# MILABENCH_TORCH_DEB_ROOT (scripts/build-torch2.sh: trixie's libtorch-cuda-dev
# 2.6). Their CMake config cannot be used from there: it names /usr. Defines
# the target milabench_torch and sets TORCH_LIBRARIES to it, as
# find_package(Torch) would. The CUDA variant (c10/cuda headers present) also
# needs the CUDA toolkit's headers (cuda_runtime_api.h, nccl.h) under
# MILABENCH_CUDA_HOME. Libraries: linked when the runtime package was
# unpacked too; they need trixie's glibc, so the link leaves their own
# dependencies unresolved (--allow-shlib-undefined) and the programs run only
# on trixie.
set(_root "${MILABENCH_TORCH_DEB_ROOT}/usr")
set(_lib "${_root}/lib/x86_64-linux-gnu")
if(NOT EXISTS "${_root}/include/torch/csrc/api/include/torch/torch.h")
  message(FATAL_ERROR "MILABENCH_TORCH_DEB_ROOT=${MILABENCH_TORCH_DEB_ROOT} holds no libtorch headers "
                      "(usr/include/torch/csrc/api/include/torch/torch.h): run scripts/build-torch2.sh")
endif()
add_library(milabench_torch INTERFACE)
# Before /usr/include, where Debian 12's own libtorch 1.13 headers may be.
target_include_directories(milabench_torch SYSTEM BEFORE INTERFACE "${_root}/include"
                                                               "${_root}/include/torch/csrc/api/include")
set(MILABENCH_TORCH_INCLUDE_DIRS "${_root}/include" "${_root}/include/torch/csrc/api/include")
# What Caffe2Targets.cmake gives torch_cpu's users.
target_compile_definitions(milabench_torch INTERFACE USE_DISTRIBUTED USE_C10D_GLOO USE_RPC USE_TENSORPIPE
                                                     _GLIBCXX_USE_CXX11_ABI=1)
set(_libs torch torch_cpu c10)
if(EXISTS "${_root}/include/c10/cuda/CUDAStream.h")
  set(MILABENCH_CUDA_HOME "/usr/local/cuda" CACHE PATH "CUDA toolkit whose headers the CUDA libtorch needs")
  foreach(_h cuda_runtime_api.h nccl.h)
    if(NOT EXISTS "${MILABENCH_CUDA_HOME}/include/${_h}")
      message(FATAL_ERROR "the CUDA libtorch under ${MILABENCH_TORCH_DEB_ROOT} needs ${_h}: not in "
                          "${MILABENCH_CUDA_HOME}/include (set -DMILABENCH_CUDA_HOME=<CUDA toolkit>)")
    endif()
  endforeach()
  target_include_directories(milabench_torch SYSTEM INTERFACE "${MILABENCH_CUDA_HOME}/include")
  # What Caffe2Targets.cmake gives torch_cuda's users.
  target_compile_definitions(milabench_torch INTERFACE USE_C10D_NCCL)
  list(APPEND _libs torch_cuda c10_cuda)
  set(MILABENCH_TORCH_VARIANT "cuda")
else()
  set(MILABENCH_TORCH_VARIANT "cpu")
endif()
set(MILABENCH_TORCH_LINKS ON)
foreach(_l ${_libs})
  if(EXISTS "${_lib}/lib${_l}.so")
    target_link_libraries(milabench_torch INTERFACE "${_lib}/lib${_l}.so")
  else()
    set(MILABENCH_TORCH_LINKS OFF)
  endif()
endforeach()
target_link_options(milabench_torch INTERFACE "LINKER:--allow-shlib-undefined")
message(STATUS "libtorch from ${MILABENCH_TORCH_DEB_ROOT}: ${MILABENCH_TORCH_VARIANT}, libraries "
               "${MILABENCH_TORCH_LINKS}")
set(TORCH_LIBRARIES milabench_torch)
set(Torch_FOUND TRUE)
