; ModuleID = '__compute_module_convert_convert_fusion_kernel_module'
source_filename = "__compute_module_convert_convert_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

declare bfloat @xla.fptrunc.f32.to.bf16(float)

; Function Attrs: uwtable
define ptr @convert_convert_fusion(ptr %0) #0 {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3, !dereferenceable !4
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3, !dereferenceable !5
  %8 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 2, i32 0
  %9 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !5
  %10 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %11 = load ptr, ptr %10, align 8
  %12 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 0
  %13 = load i64, ptr %12, align 4, !invariant.load !3
  %14 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 1
  %15 = load i64, ptr %14, align 4, !invariant.load !3
  %16 = getelementptr inbounds %kernel_dim3, ptr %11, i32 0, i32 2
  %17 = load i64, ptr %16, align 4, !invariant.load !3
  call void @convert_convert_fusion_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @convert_convert_fusion_wrapped(ptr noalias align 64 dereferenceable(32768) %0, ptr noalias align 64 dereferenceable(268435456) %1, ptr noalias align 64 dereferenceable(268435456) %2, i64 %3, i64 %4, i64 %5) #1 {
  %7 = icmp sge i64 %3, 0
  %8 = icmp sle i64 %3, 1
  %9 = and i1 %7, %8
  br i1 %9, label %10, label %44

10:                                               ; preds = %6
  %11 = mul nsw i64 %3, 4096
  %12 = mul nsw i64 %3, 33554432
  br label %13

13:                                               ; preds = %41, %10
  %14 = phi i64 [ %42, %41 ], [ 0, %10 ]
  %15 = icmp slt i64 %14, 4096
  br i1 %15, label %16, label %43

16:                                               ; preds = %13
  %17 = add nsw i64 %11, %14
  %18 = getelementptr inbounds [8192 x float], ptr %0, i32 0, i64 %17
  %19 = load float, ptr %18, align 4, !invariant.load !3
  %20 = mul nsw i64 %14, 8192
  %21 = add nsw i64 %12, %20
  br label %22

22:                                               ; preds = %25, %16
  %23 = phi i64 [ %40, %25 ], [ 0, %16 ]
  %24 = icmp slt i64 %23, 8192
  br i1 %24, label %25, label %41

25:                                               ; preds = %22
  %26 = add nsw i64 %21, %23
  %27 = getelementptr inbounds [67108864 x float], ptr %1, i32 0, i64 %26
  %28 = load float, ptr %27, align 4
  %29 = call bfloat @xla.fptrunc.f32.to.bf16(float %28)
  %30 = bitcast bfloat %29 to i16
  %31 = zext i16 %30 to i32
  %32 = shl i32 %31, 16
  %33 = bitcast i32 %32 to float
  %34 = fmul float %33, %19
  %35 = call bfloat @xla.fptrunc.f32.to.bf16(float %34)
  %36 = bitcast bfloat %35 to i16
  %37 = zext i16 %36 to i32
  %38 = shl i32 %37, 16
  %39 = bitcast i32 %38 to float
  store float %39, ptr %27, align 4
  %40 = add i64 %23, 1
  br label %22

41:                                               ; preds = %22
  %42 = add i64 %14, 1
  br label %13, !llvm.loop !6

43:                                               ; preds = %13
  br label %44

44:                                               ; preds = %43, %6
  ret void
}

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 0}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 32768}
!5 = !{i64 268435456}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.unroll.disable"}
