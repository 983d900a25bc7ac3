; ModuleID = '__compute_module_convert_convert_fusion_kernel_module'
source_filename = "__compute_module_convert_convert_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: uwtable
define noalias noundef ptr @convert_convert_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %3 = load ptr, ptr %2, align 8
  %4 = load i64, ptr %3, align 4, !invariant.load !8
  tail call void @llvm.experimental.noalias.scope.decl(metadata !9)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !12)
  %5 = icmp ult i64 %4, 2
  br i1 %5, label %.preheader, label %convert_convert_fusion_wrapped.exit

.preheader:                                       ; preds = %1
  %6 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %7 = load ptr, ptr %6, align 8, !invariant.load !8
  %8 = getelementptr inbounds nuw i8, ptr %7, i64 16
  %9 = load ptr, ptr %8, align 8, !invariant.load !8, !dereferenceable !14
  %10 = load ptr, ptr %7, align 8, !invariant.load !8, !dereferenceable !15
  %.idx = shl nuw nsw i64 %4, 14
  %11 = getelementptr i8, ptr %10, i64 %.idx
  %.idx1 = shl nuw nsw i64 %4, 27
  %12 = getelementptr i8, ptr %9, i64 %.idx1
  br label %vector.ph

vector.ph:                                        ; preds = %.preheader, %middle.block
  %13 = phi i64 [ 0, %.preheader ], [ %41, %middle.block ]
  %.idx2 = shl nuw nsw i64 %13, 15
  %14 = getelementptr i8, ptr %12, i64 %.idx2
  %15 = getelementptr [4 x i8], ptr %11, i64 %13
  %16 = load float, ptr %15, align 4, !invariant.load !8, !alias.scope !9, !noalias !12
  %broadcast.splatinsert = insertelement <8 x float> poison, float %16, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %17 = getelementptr [4 x i8], ptr %14, i64 %index
  %wide.load = load <8 x float>, ptr %17, align 4, !alias.scope !12, !noalias !9
  %18 = bitcast <8 x float> %wide.load to <8 x i32>
  %19 = lshr <8 x i32> %18, splat (i32 16)
  %20 = and <8 x i32> %19, splat (i32 1)
  %21 = add nuw nsw <8 x i32> %20, splat (i32 32767)
  %22 = fcmp uno <8 x float> %wide.load, zeroinitializer
  %23 = and <8 x i32> %18, splat (i32 -8388608)
  %24 = or disjoint <8 x i32> %23, splat (i32 4194304)
  %25 = add <8 x i32> %21, %18
  %26 = and <8 x i32> %25, splat (i32 -65536)
  %27 = select <8 x i1> %22, <8 x i32> %24, <8 x i32> %26
  %28 = bitcast <8 x i32> %27 to <8 x float>
  %29 = fmul <8 x float> %broadcast.splat, %28
  %30 = bitcast <8 x float> %29 to <8 x i32>
  %31 = lshr <8 x i32> %30, splat (i32 16)
  %32 = and <8 x i32> %31, splat (i32 1)
  %33 = add nuw nsw <8 x i32> %32, splat (i32 32767)
  %34 = fcmp uno <8 x float> %29, zeroinitializer
  %35 = and <8 x i32> %30, splat (i32 -8388608)
  %36 = or disjoint <8 x i32> %35, splat (i32 4194304)
  %37 = add <8 x i32> %33, %30
  %38 = and <8 x i32> %37, splat (i32 -65536)
  %39 = select <8 x i1> %34, <8 x i32> %36, <8 x i32> %38
  store <8 x i32> %39, ptr %17, align 4, !alias.scope !12, !noalias !9
  %index.next = add nuw i64 %index, 8
  %40 = icmp eq i64 %index.next, 8192
  br i1 %40, label %middle.block, label %vector.body, !llvm.loop !16

middle.block:                                     ; preds = %vector.body
  %41 = add nuw nsw i64 %13, 1
  %exitcond4.not = icmp eq i64 %41, 4096
  br i1 %exitcond4.not, label %convert_convert_fusion_wrapped.exit, label %vector.ph, !llvm.loop !19

convert_convert_fusion_wrapped.exit:              ; preds = %middle.block, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!xla_cpu_memory_region_name = !{!6}
!llvm.ident = !{!7}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 0}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 0}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!7 = !{!"clang version 18.1.8"}
!8 = !{}
!9 = !{!10}
!10 = distinct !{!10, !11, !"convert_convert_fusion_wrapped: argument 0"}
!11 = distinct !{!11, !"convert_convert_fusion_wrapped"}
!12 = !{!13}
!13 = distinct !{!13, !11, !"convert_convert_fusion_wrapped: argument 1"}
!14 = !{i64 268435456}
!15 = !{i64 32768}
!16 = distinct !{!16, !17, !18}
!17 = !{!"llvm.loop.isvectorized", i32 1}
!18 = !{!"llvm.loop.unroll.runtime.disable"}
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.unroll.disable"}
