; ModuleID = '__compute_module___compute_module_wrapped_convert.1'
source_filename = "__compute_module___compute_module_wrapped_convert.1"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%XLA_CPU_KernelCallFrame = type { ptr, ptr, i64, ptr }
%XLA_CPU_KernelArg = type { ptr, i64 }
%kernel_dim3 = type { i64, i64, i64 }

define ptr @wrapped_convert.1(ptr %0) {
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
  %13 = mul nuw nsw i64 %12, 128
  %14 = call i64 @llvm.smin.i64(i64 %13, i64 128)
  br label %15

15:                                               ; preds = %18, %1
  %16 = phi i64 [ %19, %18 ], [ %14, %1 ]
  %17 = icmp slt i64 %16, 128
  br i1 %17, label %18, label %20

18:                                               ; preds = %15
  call void @wrapped_convert.1_impl(ptr %5, ptr %5, i64 0, i64 64, i64 64, i64 64, i64 1, ptr %7, ptr %7, i64 0, i64 64, i64 64, i64 64, i64 1, i64 %16)
  %19 = add i64 %16, 1
  br label %15

20:                                               ; preds = %15
  ret ptr null
}

; Function Attrs: alwaysinline
define internal void @wrapped_convert.1_impl(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, ptr %7, ptr %8, i64 %9, i64 %10, i64 %11, i64 %12, i64 %13, i64 %14) #0 {
  %16 = udiv i64 %14, 2
  %17 = urem i64 %14, 2
  %18 = mul nsw i64 %17, 32
  %19 = sub i64 64, %16
  %20 = call i64 @llvm.smin.i64(i64 %19, i64 1)
  %21 = sub i64 64, %18
  %22 = call i64 @llvm.smin.i64(i64 %21, i64 32)
  %23 = icmp eq i64 %20, 1
  %24 = icmp eq i64 %22, 32
  %25 = and i1 %23, %24
  %26 = alloca bfloat, i64 32, align 2
  %27 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } poison, ptr %26, 0
  %28 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %27, ptr %26, 1
  %29 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %28, i64 0, 2
  %30 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %29, i64 1, 3, 0
  %31 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %30, i64 32, 3, 1
  %32 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %31, i64 32, 4, 0
  %33 = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %32, i64 1, 4, 1
  %34 = alloca bfloat, i64 32, align 2
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
  %44 = mul nsw i64 %16, 64
  %45 = add nsw i64 %44, %18
  %46 = getelementptr bfloat, ptr %1, i64 %45
  call void @llvm.memcpy.p0.p0.i64(ptr %26, ptr %46, i64 64, i1 false)
  br label %70

47:                                               ; preds = %15
  %48 = mul nsw i64 %16, 64
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
  %58 = getelementptr bfloat, ptr %1, i64 %49
  %59 = mul nuw nsw i64 %51, 64
  %60 = add nuw nsw i64 %59, %55
  %61 = getelementptr inbounds nuw bfloat, ptr %58, i64 %60
  %62 = load bfloat, ptr %61, align 2
  %63 = mul nuw nsw i64 %51, 32
  %64 = add nuw nsw i64 %63, %55
  %65 = getelementptr inbounds nuw bfloat, ptr %34, i64 %64
  store bfloat %62, ptr %65, align 2
  %66 = add i64 %55, 1
  br label %54

67:                                               ; preds = %54
  %68 = add i64 %51, 1
  br label %50

69:                                               ; preds = %50
  br label %70

70:                                               ; preds = %43, %69
  %71 = alloca float, i64 32, align 64
  %72 = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %42, 1
  br label %73

73:                                               ; preds = %76, %70
  %74 = phi i64 [ %85, %76 ], [ 0, %70 ]
  %75 = icmp slt i64 %74, 32
  br i1 %75, label %76, label %86

76:                                               ; preds = %73
  %77 = add i64 0, %74
  %78 = getelementptr bfloat, ptr %72, i64 %77
  %79 = load <8 x bfloat>, ptr %78, align 2
  %80 = bitcast <8 x bfloat> %79 to <8 x i16>
  %81 = zext <8 x i16> %80 to <8 x i32>
  %82 = shl <8 x i32> %81, splat (i32 16)
  %83 = bitcast <8 x i32> %82 to <8 x float>
  %84 = getelementptr float, ptr %71, i64 %77
  store <8 x float> %83, ptr %84, align 4
  %85 = add i64 %74, 8
  br label %73

86:                                               ; preds = %73
  br i1 %25, label %87, label %91

87:                                               ; preds = %86
  %88 = mul nsw i64 %16, 64
  %89 = add nsw i64 %88, %18
  %90 = getelementptr float, ptr %8, i64 %89
  call void @llvm.memcpy.p0.p0.i64(ptr %90, ptr %71, i64 128, i1 false)
  br label %114

91:                                               ; preds = %86
  %92 = mul nsw i64 %16, 64
  %93 = add nsw i64 %92, %18
  br label %94

94:                                               ; preds = %111, %91
  %95 = phi i64 [ %112, %111 ], [ 0, %91 ]
  %96 = icmp slt i64 %95, %20
  br i1 %96, label %97, label %113

97:                                               ; preds = %94
  br label %98

98:                                               ; preds = %101, %97
  %99 = phi i64 [ %110, %101 ], [ 0, %97 ]
  %100 = icmp slt i64 %99, %22
  br i1 %100, label %101, label %111

101:                                              ; preds = %98
  %102 = mul nuw nsw i64 %95, 32
  %103 = add nuw nsw i64 %102, %99
  %104 = getelementptr inbounds nuw float, ptr %71, i64 %103
  %105 = load float, ptr %104, align 4
  %106 = getelementptr float, ptr %8, i64 %93
  %107 = mul nuw nsw i64 %95, 64
  %108 = add nuw nsw i64 %107, %99
  %109 = getelementptr inbounds nuw float, ptr %106, i64 %108
  store float %105, ptr %109, align 4
  %110 = add i64 %99, 1
  br label %98

111:                                              ; preds = %98
  %112 = add i64 %95, 1
  br label %94

113:                                              ; preds = %94
  br label %114

114:                                              ; preds = %87, %113
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
!1 = !{i32 1, !"xla_dylib_index", i64 5}
!2 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!3 = !{}
