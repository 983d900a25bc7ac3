; ModuleID = '__compute_module_convert_divide_fusion_kernel_module'
source_filename = "__compute_module_convert_divide_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: uwtable
define noalias noundef ptr @convert_divide_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
vector.ph:
  %1 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %2 = load ptr, ptr %1, align 8, !invariant.load !8
  %3 = load ptr, ptr %2, align 8, !invariant.load !8, !dereferenceable !9
  %4 = getelementptr inbounds nuw i8, ptr %2, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !8, !dereferenceable !10
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !14)
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %6 = shl i64 %index, 5
  %7 = getelementptr i8, ptr %3, i64 %6
  %wide.vec = load <64 x float>, ptr %7, align 4, !invariant.load !8, !alias.scope !11, !noalias !14
  %strided.vec = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 0, i32 8, i32 16, i32 24, i32 32, i32 40, i32 48, i32 56>
  %strided.vec1 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 1, i32 9, i32 17, i32 25, i32 33, i32 41, i32 49, i32 57>
  %strided.vec2 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 2, i32 10, i32 18, i32 26, i32 34, i32 42, i32 50, i32 58>
  %strided.vec3 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 3, i32 11, i32 19, i32 27, i32 35, i32 43, i32 51, i32 59>
  %strided.vec4 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 4, i32 12, i32 20, i32 28, i32 36, i32 44, i32 52, i32 60>
  %strided.vec5 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 5, i32 13, i32 21, i32 29, i32 37, i32 45, i32 53, i32 61>
  %strided.vec6 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 6, i32 14, i32 22, i32 30, i32 38, i32 46, i32 54, i32 62>
  %strided.vec7 = shufflevector <64 x float> %wide.vec, <64 x float> poison, <8 x i32> <i32 7, i32 15, i32 23, i32 31, i32 39, i32 47, i32 55, i32 63>
  %8 = fadd reassoc <8 x float> %strided.vec, zeroinitializer
  %9 = fadd reassoc <8 x float> %8, %strided.vec1
  %10 = fadd reassoc <8 x float> %9, %strided.vec2
  %11 = fadd reassoc <8 x float> %10, %strided.vec3
  %12 = fadd reassoc <8 x float> %11, %strided.vec4
  %13 = fadd reassoc <8 x float> %12, %strided.vec5
  %14 = fadd reassoc <8 x float> %13, %strided.vec6
  %15 = fadd reassoc <8 x float> %14, %strided.vec7
  %16 = bitcast <8 x float> %15 to <8 x i32>
  %17 = lshr <8 x i32> %16, splat (i32 16)
  %18 = and <8 x i32> %17, splat (i32 1)
  %19 = add nuw nsw <8 x i32> %18, splat (i32 32767)
  %20 = fcmp uno <8 x float> %15, zeroinitializer
  %21 = and <8 x i32> %16, splat (i32 -8388608)
  %22 = or disjoint <8 x i32> %21, splat (i32 4194304)
  %23 = add <8 x i32> %19, %16
  %24 = and <8 x i32> %23, splat (i32 -65536)
  %25 = select <8 x i1> %20, <8 x i32> %22, <8 x i32> %24
  %26 = bitcast <8 x i32> %25 to <8 x float>
  %27 = fdiv <8 x float> splat (float 1.000000e+00), %26
  %28 = getelementptr inbounds nuw [4 x i8], ptr %5, i64 %index
  store <8 x float> %27, ptr %28, align 4, !alias.scope !14, !noalias !11
  %index.next = add nuw i64 %index, 8
  %29 = icmp eq i64 %index.next, 8192
  br i1 %29, label %convert_divide_fusion_wrapped.exit, label %vector.body, !llvm.loop !16

convert_divide_fusion_wrapped.exit:               ; preds = %vector.body
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
!1 = !{i32 1, !"xla_dylib_index", i64 2}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 0}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!7 = !{!"clang version 18.1.8"}
!8 = !{}
!9 = !{i64 262144}
!10 = !{i64 32768}
!11 = !{!12}
!12 = distinct !{!12, !13, !"convert_divide_fusion_wrapped: argument 0"}
!13 = distinct !{!13, !"convert_divide_fusion_wrapped"}
!14 = !{!15}
!15 = distinct !{!15, !13, !"convert_divide_fusion_wrapped: argument 1"}
!16 = distinct !{!16, !17, !18, !19}
!17 = !{!"llvm.loop.unroll.disable"}
!18 = !{!"llvm.loop.isvectorized", i32 1}
!19 = !{!"llvm.loop.unroll.runtime.disable"}
