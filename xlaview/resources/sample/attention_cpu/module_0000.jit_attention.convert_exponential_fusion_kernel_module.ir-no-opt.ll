; ModuleID = '__compute_module_convert_exponential_fusion_kernel_module'
source_filename = "__compute_module_convert_exponential_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

declare bfloat @xla.fptrunc.f32.to.bf16(float)

; Function Attrs: uwtable
define ptr @convert_exponential_fusion(ptr %0) #0 {
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
  call void @convert_exponential_fusion_wrapped(ptr %5, ptr %7, ptr %9, i64 %13, i64 %15, i64 %17)
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @convert_exponential_fusion_wrapped(ptr noalias align 64 dereferenceable(16384) %0, ptr noalias align 64 dereferenceable(134217728) %1, ptr noalias align 64 dereferenceable(268435456) %2, i64 %3, i64 %4, i64 %5) #1 {
  %7 = icmp sge i64 %3, 0
  %8 = icmp sle i64 %3, 1
  %9 = and i1 %7, %8
  br i1 %9, label %10, label %49

10:                                               ; preds = %6
  %11 = mul nsw i64 %3, 4096
  %12 = mul nsw i64 %3, 33554432
  br label %13

13:                                               ; preds = %46, %10
  %14 = phi i64 [ %47, %46 ], [ 0, %10 ]
  %15 = icmp slt i64 %14, 4096
  br i1 %15, label %16, label %48

16:                                               ; preds = %13
  %17 = add nsw i64 %11, %14
  %18 = getelementptr inbounds [8192 x bfloat], ptr %0, i32 0, i64 %17
  %19 = load bfloat, ptr %18, align 2, !invariant.load !3
  %20 = bitcast bfloat %19 to i16
  %21 = zext i16 %20 to i32
  %22 = shl i32 %21, 16
  %23 = bitcast i32 %22 to float
  %24 = mul nsw i64 %14, 8192
  %25 = add nsw i64 %12, %24
  br label %26

26:                                               ; preds = %29, %16
  %27 = phi i64 [ %45, %29 ], [ 0, %16 ]
  %28 = icmp slt i64 %27, 8192
  br i1 %28, label %29, label %46

29:                                               ; preds = %26
  %30 = add nsw i64 %25, %27
  %31 = getelementptr inbounds [67108864 x bfloat], ptr %1, i32 0, i64 %30
  %32 = load bfloat, ptr %31, align 2, !invariant.load !3
  %33 = bitcast bfloat %32 to i16
  %34 = zext i16 %33 to i32
  %35 = shl i32 %34, 16
  %36 = bitcast i32 %35 to float
  %37 = fsub float %36, %23
  %38 = call bfloat @xla.fptrunc.f32.to.bf16(float %37)
  %39 = bitcast bfloat %38 to i16
  %40 = zext i16 %39 to i32
  %41 = shl i32 %40, 16
  %42 = bitcast i32 %41 to float
  %43 = call float @llvm.exp.f32(float %42)
  %44 = getelementptr inbounds [67108864 x float], ptr %2, i32 0, i64 %30
  store float %43, ptr %44, align 4
  %45 = add i64 %27, 1
  br label %26

46:                                               ; preds = %26
  %47 = add i64 %14, 1
  br label %13, !llvm.loop !7

48:                                               ; preds = %13
  br label %49

49:                                               ; preds = %48, %6
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.exp.f32(float) #2

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { alwaysinline }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 16384}
!5 = !{i64 134217728}
!6 = !{i64 268435456}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.unroll.disable"}
