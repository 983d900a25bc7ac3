; ModuleID = '__compute_module___compute_module_wrapped_convert.3'
source_filename = "__compute_module___compute_module_wrapped_convert.3"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

declare <8 x bfloat> @xla.fptrunc.v8f32.to.v8bf16(<8 x float>)

define ptr @wrapped_convert.3(ptr %0) {
  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 3
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 0, i32 0
  %5 = load ptr, ptr %4, align 8, !invariant.load !3
  %6 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %3, i32 1, i32 0
  %7 = load ptr, ptr %6, align 8, !invariant.load !3
  %8 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0, i32 0, i32 1
  %9 = load ptr, ptr %8, align 8
  %10 = getelementptr inbounds %kernel_dim3, ptr %9, i32 0, i32 0
  %11 = load i64, ptr %10, align 4, !invariant.load !3
  %12 = call i64 @llvm.smax.i64(i64 %11, i64 0)
  %13 = mul nuw nsw i64 %12, 1048576
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 2097152)
  %15 = add nuw nsw i64 %13, 1048576
  %16 = call i64 @llvm.smin.i64(i64 %15, i64 2097152)
  br label %17

17:                                               ; preds = %20, %1
  %18 = phi i64 [ %21, %20 ], [ %14, %1 ]
  %19 = icmp slt i64 %18, %16
  br i1 %19, label %20, label %22

20:                                               ; preds = %17
  call void @wrapped_convert.3_impl(ptr %5, ptr %5, i64 0, i64 8192, i64 8192, i64 8192, i64 1, ptr %7, ptr %7, i64 0, i64 8192, i64 8192, i64 8192, i64 1, i64 %18)
  %21 = add i64 %18, 1
  br label %17

22:                                               ; preds = %17
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_convert.3_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, ptr %7, ptr %8, i64 %9, i64 %10, i64 %11, i64 %12, i64 %13, i64 %14) #0 {
  %16 = udiv i64 %14, 256
  %17 = urem i64 %14, 256
  %18 = mul nsw i64 %17, 32
  %19 = sub i64 8192, %16
  %20 = call i64 @llvm.smin.i64(i64 %19, i64 1)
  %21 = sub i64 8192, %18
  %22 = call i64 @llvm.smin.i64(i64 %21, i64 32)
  %23 = icmp eq i64 %20, 1
  %24 = icmp eq i64 %22, 32
  %25 = and i1 %23, %24
  %26 = alloca float, i64 32, align 4
  %27 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } poison, ptr %26, 0
  %28 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %27, ptr %26, 1
  %29 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %28, i64 0, 2
  %30 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %29, i64 1, 3, 0
  %31 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %30, i64 32, 3, 1
  %32 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %31, i64 32, 4, 0
  %33 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %32, i64 1, 4, 1
  %34 = alloca float, i64 32, align 4
  %35 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } poison, ptr %34, 0
  %36 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %35, ptr %34, 1
  %37 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %36, i64 0, 2
  %38 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %37, i64 1, 3, 0
  %39 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %38, i64 32, 3, 1
  %40 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %39, i64 32, 4, 0
  %41 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %40, i64 1, 4, 1
  %42 = select i1 %25, { ptr, ptr, i64, [2 x i64], [2 x i64] } %33, { ptr, ptr, i64, [2 x i64], [2 x i64] } %41
  br i1 %25, label %43, label %47

43:                                               ; preds = %15
  %44 = mul nsw i64 %16, 8192
  %45 = add nsw i64 %44, %18
  %46 = getelementptr float, ptr %1, i64 %45
  call void @llvm.memcpy.p0.p0.i64(ptr %26, ptr %46, i64 128, i1 false)
  br label %70

47:                                               ; preds = %15
  %48 = mul nsw i64 %16, 8192
  %49 = add nsw i64 %48, %18
  br label %50

50:                                               ; preds = %67, %47
  %51 = phi i64 [ %68, %67 ], [ 0, %47 ]
  %52 = icmp slt i64 %51, %20
  br i1 %52, label %53, label %69

53:                                               ; preds = %50
  br label %54

54:                                               ; preds = %57, %53
  %55 = phi i64 [ %66, %57 ], [ 0, %53 ]
  %56 = icmp slt i64 %55, %22
  br i1 %56, label %57, label %67

57:                                               ; preds = %54
  %58 = getelementptr float, ptr %1, i64 %49
  %59 = mul nuw nsw i64 %51, 8192
  %60 = add nuw nsw i64 %59, %55
  %61 = getelementptr inbounds nuw float, ptr %58, i64 %60
  %62 = load float, ptr %61, align 4
  %63 = mul nuw nsw i64 %51, 32
  %64 = add nuw nsw i64 %63, %55
  %65 = getelementptr inbounds nuw float, ptr %34, i64 %64
  store float %62, ptr %65, align 4
  %66 = add i64 %55, 1
  br label %54

67:                                               ; preds = %54
  %68 = add i64 %51, 1
  br label %50

69:                                               ; preds = %50
  br label %70

70:                                               ; preds = %43, %69
  %71 = alloca bfloat, i64 32, align 64
  %72 = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %42, 1
  br label %73

73:                                               ; preds = %76, %70
  %74 = phi i64 [ %82, %76 ], [ 0, %70 ]
  %75 = icmp slt i64 %74, 32
  br i1 %75, label %76, label %83

76:                                               ; preds = %73
  %77 = add i64 0, %74
  %78 = getelementptr float, ptr %72, i64 %77
  %79 = load <8 x float>, ptr %78, align 4
  %80 = call <8 x bfloat> @xla.fptrunc.v8f32.to.v8bf16(<8 x float> %79)
  %81 = getelementptr bfloat, ptr %71, i64 %77
  store <8 x bfloat> %80, ptr %81, align 2
  %82 = add i64 %74, 8
  br label %73

83:                                               ; preds = %73
  br i1 %25, label %84, label %88

84:                                               ; preds = %83
  %85 = mul nsw i64 %16, 8192
  %86 = add nsw i64 %85, %18
  %87 = getelementptr bfloat, ptr %8, i64 %86
  call void @llvm.memcpy.p0.p0.i64(ptr %87, ptr %71, i64 64, i1 false)
  br label %111

88:                                               ; preds = %83
  %89 = mul nsw i64 %16, 8192
  %90 = add nsw i64 %89, %18
  br label %91

91:                                               ; preds = %108, %88
  %92 = phi i64 [ %109, %108 ], [ 0, %88 ]
  %93 = icmp slt i64 %92, %20
  br i1 %93, label %94, label %110

94:                                               ; preds = %91
  br label %95

95:                                               ; preds = %98, %94
  %96 = phi i64 [ %107, %98 ], [ 0, %94 ]
  %97 = icmp slt i64 %96, %22
  br i1 %97, label %98, label %108

98:                                               ; preds = %95
  %99 = mul nuw nsw i64 %92, 32
  %100 = add nuw nsw i64 %99, %96
  %101 = getelementptr inbounds nuw bfloat, ptr %71, i64 %100
  %102 = load bfloat, ptr %101, align 2
  %103 = getelementptr bfloat, ptr %8, i64 %90
  %104 = mul nuw nsw i64 %92, 8192
  %105 = add nuw nsw i64 %104, %96
  %106 = getelementptr inbounds nuw bfloat, ptr %103, i64 %105
  store bfloat %102, ptr %106, align 2
  %107 = add i64 %96, 1
  br label %95

108:                                              ; preds = %95
  %109 = add i64 %92, 1
  br label %91

110:                                              ; preds = %91
  br label %111

111:                                              ; preds = %84, %110
  ret void
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #2

attributes #0 = { alwaysinline }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 6}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
