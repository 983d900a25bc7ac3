; ModuleID = '__compute_module_wrapped_reduce_kernel_module'
source_filename = "__compute_module_wrapped_reduce_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, target_mem: none) uwtable
define noalias noundef ptr @wrapped_reduce(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !3
  %4 = load ptr, ptr %3, align 8, !invariant.load !3, !dereferenceable !4
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !3, !dereferenceable !5
  %7 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %8 = load ptr, ptr %7, align 8, !invariant.load !3, !dereferenceable !6
  tail call void @llvm.experimental.noalias.scope.decl(metadata !7)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !10)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12)
  %9 = load bfloat, ptr %6, align 2, !invariant.load !3, !alias.scope !10, !noalias !14
  br label %.preheader

.preheader:                                       ; preds = %1, %.preheader
  %10 = phi i64 [ 0, %1 ], [ %36, %.preheader ]
  %.idx = shl i64 %10, 4
  %11 = getelementptr i8, ptr %4, i64 %.idx
  %12 = load bfloat, ptr %11, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %13 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %9, bfloat %12)
  %14 = getelementptr i8, ptr %11, i64 2
  %15 = load bfloat, ptr %14, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %16 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %13, bfloat %15)
  %17 = getelementptr i8, ptr %11, i64 4
  %18 = load bfloat, ptr %17, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %19 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %16, bfloat %18)
  %20 = getelementptr i8, ptr %11, i64 6
  %21 = load bfloat, ptr %20, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %22 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %19, bfloat %21)
  %23 = getelementptr i8, ptr %11, i64 8
  %24 = load bfloat, ptr %23, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %25 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %22, bfloat %24)
  %26 = getelementptr i8, ptr %11, i64 10
  %27 = load bfloat, ptr %26, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %28 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %25, bfloat %27)
  %29 = getelementptr i8, ptr %11, i64 12
  %30 = load bfloat, ptr %29, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %31 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %28, bfloat %30)
  %32 = getelementptr i8, ptr %11, i64 14
  %33 = load bfloat, ptr %32, align 2, !invariant.load !3, !alias.scope !7, !noalias !15
  %34 = tail call reassoc bfloat @llvm.maximum.bf16(bfloat %31, bfloat %33)
  %35 = getelementptr inbounds nuw [2 x i8], ptr %8, i64 %10
  store bfloat %34, ptr %35, align 2, !alias.scope !12, !noalias !16
  %36 = add nuw nsw i64 %10, 1
  %exitcond.not = icmp eq i64 %36, 8192
  br i1 %exitcond.not, label %wrapped_reduce_wrapped.exit, label %.preheader, !llvm.loop !17

wrapped_reduce_wrapped.exit:                      ; preds = %.preheader
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
!1 = !{i32 1, !"xla_dylib_index", i64 8}
!2 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!3 = !{}
!4 = !{i64 131072}
!5 = !{i64 2}
!6 = !{i64 16384}
!7 = !{!8}
!8 = distinct !{!8, !9, !"wrapped_reduce_wrapped: argument 0"}
!9 = distinct !{!9, !"wrapped_reduce_wrapped"}
!10 = !{!11}
!11 = distinct !{!11, !9, !"wrapped_reduce_wrapped: argument 1"}
!12 = !{!13}
!13 = distinct !{!13, !9, !"wrapped_reduce_wrapped: argument 2"}
!14 = !{!8, !13}
!15 = !{!11, !13}
!16 = !{!8, !11}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.unroll.disable"}
