; ModuleID = '__compute_module_wrapped_reduce-window.2_kernel_module'
source_filename = "__compute_module_wrapped_reduce-window.2_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

; Function Attrs: uwtable
define ptr @wrapped_reduce-window.2(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !6
  %10 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %11 = load ptr, ptr %10, align 8
  %12 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 0
  %13 = load i64, ptr %12, align 4, !invariant.load !3
  %14 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 1
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 2
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  call void @wrapped_reduce-window.2_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_reduce-window.2_wrapped(ptr noalias align 64 dereferenceable(268435456) %0, ptr noalias align 64 dereferenceable(4) %1, ptr noalias align 64 dereferenceable(8388608) %2, i64 %3, i64 %4, i64 %5) #1 {
  %7 = icmp sge i64 %3, 0
  %8 = icmp sle i64 %3, 1
  %9 = and i1 %7, %8
  br i1 %9, label %10, label %46

10:                                               ; preds = %6
  %11 = getelementptr inbounds [1 x float], ptr %1, i32 0, i32 0
  %12 = load float, ptr %11, align 4, !invariant.load !3
  %13 = mul nsw i64 %3, 33554432
  %14 = mul nsw i64 %3, 1048576
  br label %15

15:                                               ; preds = %43, %10
  %16 = phi i64 [ %44, %43 ], [ 0, %10 ]
  %17 = icmp slt i64 %16, 4096
  br i1 %17, label %18, label %45

18:                                               ; preds = %15
  %19 = mul nsw i64 %16, 8192
  %20 = add nsw i64 %13, %19
  %21 = mul nsw i64 %16, 256
  %22 = add nsw i64 %14, %21
  br label %23

23:                                               ; preds = %39, %18
  %24 = phi i64 [ %42, %39 ], [ 0, %18 ]
  %25 = icmp slt i64 %24, 256
  br i1 %25, label %26, label %43

26:                                               ; preds = %23
  %27 = mul nsw i64 %24, 32
  %28 = add nsw i64 %20, %27
  br label %29

29:                                               ; preds = %33, %26
  %30 = phi i64 [ %38, %33 ], [ 0, %26 ]
  %31 = phi float [ %37, %33 ], [ %12, %26 ]
  %32 = icmp slt i64 %30, 32
  br i1 %32, label %33, label %39

33:                                               ; preds = %29
  %34 = add nsw i64 %28, %30
  %35 = getelementptr inbounds [67108864 x float], ptr %0, i32 0, i64 %34
  %36 = load float, ptr %35, align 4, !invariant.load !3
  %37 = fadd reassoc float %31, %36
  %38 = add i64 %30, 1
  br label %29

39:                                               ; preds = %29
  %40 = add nsw i64 %22, %24
  %41 = getelementptr inbounds [2097152 x float], ptr %2, i32 0, i64 %40
  store float %31, ptr %41, align 4
  %42 = add i64 %24, 1
  br label %23, !llvm.loop !7

43:                                               ; preds = %23
  %44 = add i64 %16, 1
  br label %15, !llvm.loop !7

45:                                               ; preds = %15
  br label %46

46:                                               ; preds = %45, %6
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 11}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 268435456}
!5 = !{i64 4}
!6 = !{i64 8388608}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
