; ModuleID = '__compute_module___compute_module_convert_convert_fusion.2'
source_filename = "__compute_module___compute_module_convert_convert_fusion.2"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define noalias noundef ptr @convert_convert_fusion.2(ptr nofree readonly captures(none) %0) local_unnamed_addr {
  %2 = getelementptr inbounds nuw i8, ptr %0, i64 24
  %3 = load ptr, ptr %2, align 8, !invariant.load !8
  %4 = load ptr, ptr %3, align 8, !invariant.load !8
  %5 = getelementptr inbounds nuw i8, ptr %3, i64 16
  %6 = load ptr, ptr %5, align 8, !invariant.load !8
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %8 = load ptr, ptr %7, align 8
  %9 = load i64, ptr %8, align 4, !invariant.load !8
  %.not = icmp sgt i64 %9, 1
  br i1 %.not, label %._crit_edge, label %.lr.ph.preheader

.lr.ph.preheader:                                 ; preds = %1
  %10 = tail call i64 @llvm.smax.i64(i64 %9, i64 0)
  %11 = shl i64 %10, 14
  %12 = tail call i64 @llvm.umin.i64(i64 %11, i64 16384)
  %13 = tail call i64 @llvm.umin.i64(i64 %11, i64 32768)
  %14 = or disjoint i64 %12, 16383
  br label %.lr.ph

.lr.ph:                                           ; preds = %.lr.ph.preheader, %.lr.ph
  %15 = phi i64 [ %45, %.lr.ph ], [ %13, %.lr.ph.preheader ]
  %savedstack = tail call ptr @llvm.stacksave.p0()
  %16 = shl nuw nsw i64 %15, 4
  %17 = and i64 %16, 48
  %18 = shl nuw nsw i64 %15, 6
  %.idx3 = and i64 %18, 9223372036854775552
  %19 = getelementptr i8, ptr %4, i64 %.idx3
  %20 = getelementptr [4 x i8], ptr %19, i64 %17
  %.sroa.0.0.copyload = load <8 x float>, ptr %20, align 1
  %.sroa.4.0..sroa_idx = getelementptr inbounds nuw i8, ptr %20, i64 32
  %.sroa.4.0.copyload = load <8 x float>, ptr %.sroa.4.0..sroa_idx, align 1
  %21 = alloca [16 x float], align 64
  %22 = bitcast <8 x float> %.sroa.0.0.copyload to <8 x i32>
  %23 = lshr <8 x i32> %22, splat (i32 16)
  %24 = and <8 x i32> %23, splat (i32 1)
  %25 = add nuw nsw <8 x i32> %24, splat (i32 32767)
  %26 = fcmp uno <8 x float> %.sroa.0.0.copyload, zeroinitializer
  %27 = and <8 x i32> %22, splat (i32 -8388608)
  %28 = or disjoint <8 x i32> %27, splat (i32 4194304)
  %29 = add <8 x i32> %25, %22
  %30 = and <8 x i32> %29, splat (i32 -65536)
  %31 = select <8 x i1> %26, <8 x i32> %28, <8 x i32> %30
  store <8 x i32> %31, ptr %21, align 64
  %32 = bitcast <8 x float> %.sroa.4.0.copyload to <8 x i32>
  %33 = lshr <8 x i32> %32, splat (i32 16)
  %34 = and <8 x i32> %33, splat (i32 1)
  %35 = add nuw nsw <8 x i32> %34, splat (i32 32767)
  %36 = fcmp uno <8 x float> %.sroa.4.0.copyload, zeroinitializer
  %37 = and <8 x i32> %32, splat (i32 -8388608)
  %38 = or disjoint <8 x i32> %37, splat (i32 4194304)
  %39 = add <8 x i32> %35, %32
  %40 = and <8 x i32> %39, splat (i32 -65536)
  %41 = select <8 x i1> %36, <8 x i32> %38, <8 x i32> %40
  %42 = getelementptr inbounds nuw i8, ptr %21, i64 32
  store <8 x i32> %41, ptr %42, align 32
  %43 = getelementptr i8, ptr %6, i64 %.idx3
  %44 = getelementptr [4 x i8], ptr %43, i64 %17
  call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(64) %44, ptr noundef nonnull align 64 dereferenceable(64) %21, i64 64, i1 false)
  call void @llvm.stackrestore.p0(ptr %savedstack)
  %45 = add nuw nsw i64 %15, 1
  %exitcond.not = icmp eq i64 %15, %14
  br i1 %exitcond.not, label %._crit_edge, label %.lr.ph

._crit_edge:                                      ; preds = %.lr.ph, %1
  ret ptr null
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #0

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare ptr @llvm.stacksave.p0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn
declare void @llvm.stackrestore.p0(ptr) #2

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #3

attributes #0 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn }
attributes #3 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!xla_cpu_memory_region_name = !{!6}
!llvm.ident = !{!7}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 1, !"xla_dylib_index", i64 1}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 0}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"xla_cpu_emitter__tiled_emitter__hlo_opcode__fusion"}
!7 = !{!"clang version 18.1.8"}
!8 = !{}
