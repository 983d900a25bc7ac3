; ModuleID = '__compute_module_wrapped_reduce-window.1_kernel_module'
source_filename = "__compute_module_wrapped_reduce-window.1_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_reduce-window.1(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %3 = load ptr, ptr %2, align 8
  %4 = load i64, ptr %3, align 4, !invariant.load !3
  tail call void @llvm.experimental.noalias.scope.decl(metadata !4)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !7)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  %5 = icmp ult i64 %4, 2
  br i1 %5, label %6, label %wrapped_reduce-window.1_wrapped.exit

6:                                                ; preds = %1
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %8 = load ptr, ptr %7, align 8, !invariant.load !3
  %9 = getelementptr inbounds nuw i8, ptr %8, i64 32
  %10 = load ptr, ptr %9, align 8, !invariant.load !3, !dereferenceable !11
  %11 = load ptr, ptr %8, align 8, !invariant.load !3, !dereferenceable !12
  %12 = getelementptr inbounds nuw i8, ptr %8, i64 16
  %13 = load ptr, ptr %12, align 8, !invariant.load !3, !dereferenceable !13
  %14 = load bfloat, ptr %13, align 2, !invariant.load !3, !alias.scope !7, !noalias !14
  %.idx2 = shl nuw nsw i64 %4, 21
  %15 = getelementptr i8, ptr %11, i64 %.idx2
  %.idx = shl nuw nsw i64 %4, 16
  %16 = getelementptr i8, ptr %10, i64 %.idx
  br label %.preheader6

.preheader6:                                      ; preds = %6, %119
  %17 = phi i64 [ 0, %6 ], [ %120, %119 ]
  %.idx3 = shl i64 %17, 9
  %18 = getelementptr i8, ptr %15, i64 %.idx3
  %.idx1 = shl i64 %17, 4
  %19 = getelementptr i8, ptr %16, i64 %.idx1
  br label %.preheader

.preheader:                                       ; preds = %.preheader6, %.preheader
  %20 = phi i64 [ 0, %.preheader6 ], [ %118, %.preheader ]
  %.idx4 = shl i64 %20, 6
  %21 = getelementptr i8, ptr %18, i64 %.idx4
  %22 = load bfloat, ptr %21, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %23 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %14, bfloat %22)
  %24 = getelementptr i8, ptr %21, i64 2
  %25 = load bfloat, ptr %24, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %26 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %23, bfloat %25)
  %27 = getelementptr i8, ptr %21, i64 4
  %28 = load bfloat, ptr %27, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %29 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %26, bfloat %28)
  %30 = getelementptr i8, ptr %21, i64 6
  %31 = load bfloat, ptr %30, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %32 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %29, bfloat %31)
  %33 = getelementptr i8, ptr %21, i64 8
  %34 = load bfloat, ptr %33, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %35 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %32, bfloat %34)
  %36 = getelementptr i8, ptr %21, i64 10
  %37 = load bfloat, ptr %36, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %38 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %35, bfloat %37)
  %39 = getelementptr i8, ptr %21, i64 12
  %40 = load bfloat, ptr %39, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %41 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %38, bfloat %40)
  %42 = getelementptr i8, ptr %21, i64 14
  %43 = load bfloat, ptr %42, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %44 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %41, bfloat %43)
  %45 = getelementptr i8, ptr %21, i64 16
  %46 = load bfloat, ptr %45, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %47 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %44, bfloat %46)
  %48 = getelementptr i8, ptr %21, i64 18
  %49 = load bfloat, ptr %48, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %50 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %47, bfloat %49)
  %51 = getelementptr i8, ptr %21, i64 20
  %52 = load bfloat, ptr %51, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %53 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %50, bfloat %52)
  %54 = getelementptr i8, ptr %21, i64 22
  %55 = load bfloat, ptr %54, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %56 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %53, bfloat %55)
  %57 = getelementptr i8, ptr %21, i64 24
  %58 = load bfloat, ptr %57, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %59 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %56, bfloat %58)
  %60 = getelementptr i8, ptr %21, i64 26
  %61 = load bfloat, ptr %60, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %62 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %59, bfloat %61)
  %63 = getelementptr i8, ptr %21, i64 28
  %64 = load bfloat, ptr %63, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %65 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %62, bfloat %64)
  %66 = getelementptr i8, ptr %21, i64 30
  %67 = load bfloat, ptr %66, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %68 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %65, bfloat %67)
  %69 = getelementptr i8, ptr %21, i64 32
  %70 = load bfloat, ptr %69, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %71 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %68, bfloat %70)
  %72 = getelementptr i8, ptr %21, i64 34
  %73 = load bfloat, ptr %72, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %74 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %71, bfloat %73)
  %75 = getelementptr i8, ptr %21, i64 36
  %76 = load bfloat, ptr %75, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %77 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %74, bfloat %76)
  %78 = getelementptr i8, ptr %21, i64 38
  %79 = load bfloat, ptr %78, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %80 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %77, bfloat %79)
  %81 = getelementptr i8, ptr %21, i64 40
  %82 = load bfloat, ptr %81, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %83 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %80, bfloat %82)
  %84 = getelementptr i8, ptr %21, i64 42
  %85 = load bfloat, ptr %84, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %86 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %83, bfloat %85)
  %87 = getelementptr i8, ptr %21, i64 44
  %88 = load bfloat, ptr %87, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %89 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %86, bfloat %88)
  %90 = getelementptr i8, ptr %21, i64 46
  %91 = load bfloat, ptr %90, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %92 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %89, bfloat %91)
  %93 = getelementptr i8, ptr %21, i64 48
  %94 = load bfloat, ptr %93, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %95 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %92, bfloat %94)
  %96 = getelementptr i8, ptr %21, i64 50
  %97 = load bfloat, ptr %96, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %98 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %95, bfloat %97)
  %99 = getelementptr i8, ptr %21, i64 52
  %100 = load bfloat, ptr %99, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %101 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %98, bfloat %100)
  %102 = getelementptr i8, ptr %21, i64 54
  %103 = load bfloat, ptr %102, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %104 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %101, bfloat %103)
  %105 = getelementptr i8, ptr %21, i64 56
  %106 = load bfloat, ptr %105, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %107 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %104, bfloat %106)
  %108 = getelementptr i8, ptr %21, i64 58
  %109 = load bfloat, ptr %108, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %110 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %107, bfloat %109)
  %111 = getelementptr i8, ptr %21, i64 60
  %112 = load bfloat, ptr %111, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %113 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %110, bfloat %112)
  %114 = getelementptr i8, ptr %21, i64 62
  %115 = load bfloat, ptr %114, align 2, !invariant.load !3, !alias.scope !4, !noalias !15
  %116 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %113, bfloat %115)
  %117 = getelementptr [2 x i8], ptr %19, i64 %20
  store bfloat %116, ptr %117, align 2, !alias.scope !9, !noalias !16
  %118 = add nuw nsw i64 %20, 1
  %exitcond.not = icmp eq i64 %118, 8
  br i1 %exitcond.not, label %119, label %.preheader, !llvm.loop !17

119:                                              ; preds = %.preheader
  %120 = add nuw nsw i64 %17, 1
  %exitcond7.not = icmp eq i64 %120, 4096
  br i1 %exitcond7.not, label %wrapped_reduce-window.1_wrapped.exit, label %.preheader6, !llvm.loop !17

wrapped_reduce-window.1_wrapped.exit:             ; preds = %119, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare bfloat @llvm.maximum.bf16(bfloat, bfloat) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #2

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1}
!xla_cpu_memory_region_name = !{!2}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 10}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{!5}
!5 = distinct !{!5, !6, !"wrapped_reduce-window.1_wrapped: argument 0"}
!6 = distinct !{!6, !"wrapped_reduce-window.1_wrapped"}
!7 = !{!8}
!8 = distinct !{!8, !6, !"wrapped_reduce-window.1_wrapped: argument 1"}
!9 = !{!10}
!10 = distinct !{!10, !6, !"wrapped_reduce-window.1_wrapped: argument 2"}
!11 = !{i64 131072}
!12 = !{i64 4194304}
!13 = !{i64 2}
!14 = !{!5, !10}
!15 = !{!8, !10}
!16 = !{!5, !8}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.unroll.disable"}
