; ModuleID = '__compute_module_convert_exponential_fusion_kernel_module'
source_filename = "__compute_module_convert_exponential_fusion_kernel_module"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Function Attrs: uwtable
define noalias noundef ptr @convert_exponential_fusion(ptr nofree readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !8
  %4 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %5 = load ptr, ptr %4, align 8, !invariant.load !8, !dereferenceable !9
  %6 = getelementptr inbounds nuw i8, ptr %3, i64 32
  %7 = load ptr, ptr %6, align 8, !invariant.load !8, !dereferenceable !10
  %8 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %9 = load ptr, ptr %8, align 8
  %10 = load i64, ptr %9, align 4, !invariant.load !8
  tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !14)
  tail call void @llvm.experimental.noalias.scope.decl(metadata !16)
  %11 = icmp ult i64 %10, 2
  br i1 %11, label %12, label %convert_exponential_fusion_wrapped.exit

12:                                               ; preds = %1
  %13 = load ptr, ptr %3, align 8, !invariant.load !8, !dereferenceable !18
  %14 = shl nuw nsw i64 %10, 25
  %.idx = shl nuw nsw i64 %10, 13
  %15 = getelementptr i8, ptr %13, i64 %.idx
  br label %vector.ph

vector.ph:                                        ; preds = %12, %middle.block
  %16 = phi i64 [ 0, %12 ], [ %54, %middle.block ]
  %17 = shl nuw nsw i64 %16, 13
  %18 = add nuw nsw i64 %17, %14
  %19 = getelementptr [2 x i8], ptr %15, i64 %16
  %20 = load i16, ptr %19, align 2, !invariant.load !8, !alias.scope !11, !noalias !19
  %21 = zext i16 %20 to i32
  %22 = shl nuw i32 %21, 16
  %23 = insertelement <8 x i32> poison, i32 %22, i64 0
  %broadcast.splatinsert = bitcast <8 x i32> %23 to <8 x float>
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %24 = add nuw nsw i64 %index, %18
  %25 = getelementptr inbounds nuw [2 x i8], ptr %5, i64 %24
  %wide.load = load <8 x i16>, ptr %25, align 2, !invariant.load !8, !alias.scope !14, !noalias !20
  %26 = zext <8 x i16> %wide.load to <8 x i32>
  %27 = shl nuw <8 x i32> %26, splat (i32 16)
  %28 = bitcast <8 x i32> %27 to <8 x float>
  %29 = fsub <8 x float> %28, %broadcast.splat
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
  %40 = bitcast <8 x i32> %39 to <8 x float>
  %.inv = fcmp olt <8 x float> %40, splat (float -8.780000e+01)
  %41 = select <8 x i1> %.inv, <8 x float> splat (float -8.780000e+01), <8 x float> %40
  %.inv5 = fcmp ogt <8 x float> %41, splat (float 8.880000e+01)
  %42 = select <8 x i1> %.inv5, <8 x float> splat (float 8.880000e+01), <8 x float> %41
  %exp_f32.i = fmul <8 x float> %42, splat (float f0x3FB8AA3B)
  %exp_f321.i = fadd <8 x float> %exp_f32.i, splat (float 5.000000e-01)
  %43 = call <8 x float> @llvm.floor.v8f32(<8 x float> %exp_f321.i)
  %.inv6 = fcmp olt <8 x float> %43, splat (float -1.270000e+02)
  %44 = select <8 x i1> %.inv6, <8 x float> splat (float -1.270000e+02), <8 x float> %43
  %.inv7 = fcmp ogt <8 x float> %44, splat (float 1.270000e+02)
  %45 = select <8 x i1> %.inv7, <8 x float> splat (float 1.270000e+02), <8 x float> %44
  %exp_f322.i = fmul <8 x float> %45, splat (float f0x3F318000)
  %46 = fsub <8 x float> %42, %exp_f322.i
  %exp_f323.i = fmul <8 x float> %45, splat (float f0xB95E8083)
  %47 = fsub <8 x float> %46, %exp_f323.i
  %exp_f324.i = fmul <8 x float> %47, splat (float f0x39506967)
  %exp_f325.i = fadd <8 x float> %exp_f324.i, splat (float f0x3AB743CE)
  %exp_f326.i = fmul <8 x float> %exp_f325.i, %47
  %exp_f327.i = fadd <8 x float> %exp_f326.i, splat (float f0x3C088908)
  %exp_f328.i = fmul <8 x float> %exp_f327.i, %47
  %exp_f329.i = fadd <8 x float> %exp_f328.i, splat (float f0x3D2AA9C1)
  %exp_f3210.i = fmul <8 x float> %exp_f329.i, %47
  %exp_f3211.i = fadd <8 x float> %exp_f3210.i, splat (float f0x3E2AAAAA)
  %exp_f3212.i = fmul <8 x float> %exp_f3211.i, %47
  %exp_f3213.i = fadd <8 x float> %exp_f3212.i, splat (float 5.000000e-01)
  %exp_f3214.i = fmul <8 x float> %47, %47
  %exp_f3215.i = fmul <8 x float> %exp_f3213.i, %exp_f3214.i
  %exp_f3216.i = fadd <8 x float> %47, %exp_f3215.i
  %exp_f3217.i = fadd <8 x float> %exp_f3216.i, splat (float 1.000000e+00)
  %48 = fptosi <8 x float> %45 to <8 x i32>
  %49 = shl <8 x i32> %48, splat (i32 23)
  %50 = add <8 x i32> %49, splat (i32 1065353216)
  %51 = bitcast <8 x i32> %50 to <8 x float>
  %exp_f3218.i = fmul <8 x float> %exp_f3217.i, %51
  %52 = getelementptr inbounds nuw [4 x i8], ptr %7, i64 %24
  store <8 x float> %exp_f3218.i, ptr %52, align 4, !alias.scope !16, !noalias !21
  %index.next = add nuw i64 %index, 8
  %53 = icmp eq i64 %index.next, 8192
  br i1 %53, label %middle.block, label %vector.body, !llvm.loop !22

middle.block:                                     ; preds = %vector.body
  %54 = add nuw nsw i64 %16, 1
  %exitcond3.not = icmp eq i64 %54, 4096
  br i1 %exitcond3.not, label %convert_exponential_fusion_wrapped.exit, label %vector.ph, !llvm.loop !25

convert_exponential_fusion_wrapped.exit:          ; preds = %middle.block, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.experimental.noalias.scope.decl(metadata) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare <8 x float> @llvm.floor.v8f32(<8 x float>) #2

attributes #0 = { uwtable "frame-pointer"="all" "prefer-vector-width"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!xla_cpu_memory_region_name = !{!6}
!llvm.ident = !{!7}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 3}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 0}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"xla_cpu_emitter__loop_fusion_kernel_emitter__hlo_opcode__fusion"}
!7 = !{!"clang version 18.1.8"}
!8 = !{}
!9 = !{i64 134217728}
!10 = !{i64 268435456}
!11 = !{!12}
!12 = distinct !{!12, !13, !"convert_exponential_fusion_wrapped: argument 0"}
!13 = distinct !{!13, !"convert_exponential_fusion_wrapped"}
!14 = !{!15}
!15 = distinct !{!15, !13, !"convert_exponential_fusion_wrapped: argument 1"}
!16 = !{!17}
!17 = distinct !{!17, !13, !"convert_exponential_fusion_wrapped: argument 2"}
!18 = !{i64 16384}
!19 = !{!15, !17}
!20 = !{!12, !17}
!21 = !{!12, !15}
!22 = distinct !{!22, !23, !24}
!23 = !{!"llvm.loop.isvectorized", i32 1}
!24 = !{!"llvm.loop.unroll.runtime.disable"}
!25 = distinct !{!25, !26}
!26 = !{!"llvm.loop.unroll.disable"}
